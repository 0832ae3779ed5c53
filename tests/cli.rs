//! End-to-end runs of the binary: every report format snapshotted, exit codes, and bad
//! input that must exit 2 with one line naming the file.

mod common;

use common::{fixture, gpulint, profile, transcript, warnings};

const ZOO: &str = "fixtures/h200-zoo/full_raw_base.csv";

#[test]
fn human_report() {
    let out = gpulint(&["check", ZOO, "--color", "never"]);
    insta::assert_snapshot!(transcript(&out));
}

#[test]
fn concise_report() {
    let out = gpulint(&["check", ZOO, "--format", "concise"]);
    insta::assert_snapshot!(transcript(&out));
}

#[test]
fn json_report() {
    let out = gpulint(&[
        "check",
        "fixtures/h200-zoo/min_raw_stdout_mixed.txt",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tool"], "gpulint");
    // Launches 0 and 2 are one kernel with one grid and block: one entry, two launches.
    assert_eq!(v["sources"][0]["launch_count"], 3);
    assert_eq!(v["kernels"].as_array().unwrap().len(), 2);
    assert_eq!(v["kernels"][0]["launch_count"], 2);
    assert_eq!(v["kernels"][0]["spread"]["sectors_per_request_ld"][1], 5.0);
    assert_eq!(v["findings"][0]["launch"], 1);
    assert_eq!(v["findings"][0]["rule"], "uncoalesced-load");
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn verbose_says_what_was_skipped_and_why() {
    let out = gpulint(&[
        "check",
        "fixtures/h200-zoo/full_details.csv",
        "--format",
        "concise",
        "--verbose",
    ]);
    insta::assert_snapshot!(transcript(&out));
}

#[test]
fn rules_and_explain() {
    insta::assert_snapshot!("rules_table", transcript(&gpulint(&["rules"])));
    insta::assert_snapshot!("explain_gl101", transcript(&gpulint(&["explain", "GL101"])));
    let by_slug = gpulint(&["explain", "uncoalesced-load"]);
    assert_eq!(by_slug.stdout, gpulint(&["explain", "GL101"]).stdout);
    let unknown = gpulint(&["explain", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn exit_codes_follow_fail_on() {
    let code = |args: &[&str]| gpulint(args).status.code();
    assert_eq!(code(&["check", ZOO, "--format", "concise"]), Some(1));
    assert_eq!(
        code(&["check", ZOO, "--format", "concise", "--exit-zero"]),
        Some(0)
    );
    assert_eq!(
        code(&["check", ZOO, "--format", "concise", "--fail-on", "error"]),
        Some(0)
    );
    // Selecting nothing is a usage error, not a clean run.
    assert_eq!(
        code(&[
            "check", ZOO, "--select", "GL1", "--ignore", "GL1", "--format", "concise"
        ]),
        Some(2)
    );
    let quiet = gpulint(&[
        "check",
        ZOO,
        "--select",
        "small-grid",
        "--param",
        "small-grid.min_slot_fill_pct=0.01",
        "--format",
        "concise",
    ]);
    assert_eq!(quiet.status.code(), Some(0), "{}", transcript(&quiet));
    let loud = gpulint(&[
        "check",
        ZOO,
        "--select",
        "small-grid",
        "--format",
        "concise",
    ]);
    assert_eq!(loud.status.code(), Some(1));
    let bad_param = gpulint(&["check", ZOO, "--param", "small-grid.nope=1"]);
    assert_eq!(bad_param.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_param.stderr).contains("no parameter \"nope\""));
}

#[test]
fn config_file_ignores_kernels_and_sets_thresholds() {
    let dir = common::scratch_dir("config");
    let cfg = dir.join("gpulint.toml");
    std::fs::write(
        &cfg,
        "ignore = [\"GL2\"]\n[params.bank-conflicts]\nmin_conflict_share = 0.99\n[[ignore-kernel]]\npattern = \"^copy_strided\"\n",
    )
    .unwrap();
    let out = gpulint(&[
        "check",
        ZOO,
        "--format",
        "concise",
        "--config",
        cfg.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("copy_strided"), "{text}");
    assert!(!text.contains("GL20"), "{text}");
    assert!(!text.contains("GL401"), "{text}");
    assert!(text.contains("GL103"), "{text}");
}

/// On a details page, the skips point at the report's raw page, which holds the metrics
/// the page does not show, before any new collection.
#[test]
fn verbose_on_a_details_page_points_at_the_raw_page() {
    let out = gpulint(&["check", "fixtures/h200-zoo/full_details.csv", "--verbose"]);
    let err = String::from_utf8_lossy(&out.stderr);
    let skip = err
        .lines()
        .find(|l| l.starts_with("gpulint: skipped uncoalesced-load"))
        .expect("uncoalesced-load cannot judge a details page");
    assert!(skip.contains("--csv --page raw"), "{skip}");
    assert!(!skip.contains("(collect it with"), "{skip}");
    // A raw page keeps the plain hint.
    let out = gpulint(&["check", "fixtures/h200-zoo/min_raw.csv", "--verbose"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("a details page shows"), "{err}");
}

/// Rules are named in any case, the same way by every option and config field: a code or
/// a slug, as `--select` has always taken them.
#[test]
fn rule_names_match_in_any_case_everywhere() {
    let concise = |args: &[&str]| {
        let mut all = vec!["check", ZOO, "--format", "concise"];
        all.extend(args);
        let out = gpulint(&all);
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "{args:?}: {}",
            transcript(&out)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let loud = concise(&[]);
    assert!(loud.contains("warning[GL101]"), "{loud}");
    for name in ["gl101", "GL101", "Uncoalesced-Load"] {
        let quiet = concise(&["--param", &format!("{name}.min_excess_share=0.99")]);
        assert!(!quiet.contains("warning[GL101]"), "{name}: {quiet}");
        let selected = concise(&["--select", name]);
        assert!(
            selected
                .lines()
                .all(|l| !l.contains("[GL") || l.contains("[GL101]")),
            "{name}: {selected}"
        );
    }
    let dir = common::scratch_dir("case");
    let cfg = dir.join("gpulint.toml");
    std::fs::write(&cfg, "[severity]\ngl301 = \"error\"\n").unwrap();
    let text = concise(&["--config", cfg.to_str().unwrap()]);
    assert!(text.contains("error[GL301]"), "{text}");
    let explain = gpulint(&["explain", "LOCAL-MEMORY"]);
    assert_eq!(explain.status.code(), Some(0), "{}", transcript(&explain));
}

/// A threshold two rules share is declared once: pipe-bound's bar is issue-bound's
/// deferral too, so moving it moves both, and the follower cannot be set on its own.
#[test]
fn a_shared_threshold_moves_both_rules() {
    let file = "fixtures/h200-corpus/min_compute_classes.csv";
    let report = |extra: &[&str]| {
        let mut args = vec!["check", file, "--format", "concise", "--exit-zero"];
        args.extend(extra);
        String::from_utf8(gpulint(&args).stdout).unwrap()
    };
    let hash_loop = |text: &str| {
        text.lines()
            .filter(|l| l.contains("hash_loop") && l.contains("warning["))
            .map(|l| l.split("warning[").nth(1).unwrap()[..5].to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(hash_loop(&report(&[])), ["GL504"]);
    assert_eq!(
        hash_loop(&report(&["--param", "pipe-bound.min_pipe_pct=99"])),
        ["GL503"]
    );
    let out = gpulint(&["check", file, "--param", "issue-bound.pipe_bound_pct=99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        transcript(&out)
            .contains("pipe_bound_pct follows pipe-bound.min_pipe_pct; set that instead"),
        "{}",
        transcript(&out)
    );
}

/// `gpulint check` of the zoo in `dir` (where the config search starts), concise, with
/// `extra` options: its stdout and stderr.
fn concise_check_in(dir: &std::path::Path, extra: &[&str]) -> (String, String) {
    let zoo = common::fixture("h200-zoo/full_raw_base.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", zoo.to_str().unwrap(), "--format", "concise"])
        .args(extra)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("PATH", common::path_without_ncu())
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// As ruff finds its config: the nearest gpulint.toml, or pyproject.toml with
/// [tool.gpulint], from the working directory up; --verbose names the file.
#[test]
fn config_is_found_from_a_subdirectory_and_in_pyproject() {
    let zoo = common::fixture("h200-zoo/full_raw_base.csv");
    let zoo = zoo.to_str().unwrap();
    let run_in = |dir: &std::path::Path| concise_check_in(dir, &["--verbose"]);
    let root = common::scratch_dir("config-up");
    let deep = root.join("src/kernels");
    std::fs::create_dir_all(&deep).unwrap();
    // No config anywhere above (the scratch folder is under the temporary folder).
    let (plain, said) = run_in(&deep);
    assert!(plain.contains("GL101"), "{plain}");
    assert!(said.contains("gpulint: config: none"), "{said}");

    // A pyproject.toml without [tool.gpulint] is passed over; one with it is read.
    std::fs::write(root.join("src/pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"x\"\n[tool.gpulint]\nignore = [\"GL101\"]\n",
    )
    .unwrap();
    let (text, said) = run_in(&deep);
    assert!(!text.contains("GL101"), "{text}");
    assert!(text.contains("GL102"), "{text}");
    assert!(
        said.contains(&format!(
            "config: {}",
            root.join("pyproject.toml").display()
        )),
        "{said}"
    );

    // A gpulint.toml nearer the working directory wins.
    std::fs::write(root.join("src/gpulint.toml"), "ignore = [\"GL102\"]\n").unwrap();
    let (text, said) = run_in(&deep);
    assert!(text.contains("GL101") && !text.contains("GL102"), "{text}");
    assert!(
        said.contains(&format!(
            "config: {}",
            root.join("src/gpulint.toml").display()
        )),
        "{said}"
    );

    // A bad [tool.gpulint] names the file and the table.
    std::fs::remove_file(root.join("src/gpulint.toml")).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[tool.gpulint]\nignor = [\"GL101\"]\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", zoo])
        .current_dir(&deep)
        .env("PATH", common::path_without_ncu())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pyproject.toml: malformed [tool.gpulint]"),
        "{err}"
    );
}

/// The search stops at the repository's root: a config planted in a folder above it (a
/// shared `/tmp`, another user's home) is not read. Inside, a config another user owns
/// is passed over with a warning, as git refuses a repository another user owns; given
/// with `--config`, it is read.
#[cfg(unix)]
#[test]
fn a_config_above_the_repository_or_of_another_user_is_passed_over() {
    let run_in = concise_check_in;
    let root = common::scratch_dir("config-boundary");
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    // Above the repository: it would hide every finding.
    std::fs::write(
        root.join("gpulint.toml"),
        "[[ignore-kernel]]\npattern = \".*\"\n",
    )
    .unwrap();
    let (text, _) = run_in(&repo.join("src"), &[]);
    assert!(
        text.contains("GL101"),
        "the planted config was read:\n{text}"
    );
    // The same file given by name is the user's choice.
    let planted = root.join("gpulint.toml");
    let (text, _) = run_in(&repo, &["--config", planted.to_str().unwrap()]);
    assert!(!text.contains("GL101"), "{text}");

    // Inside the repository, another user's config is passed over, and said to be.
    let inside = repo.join("gpulint.toml");
    std::fs::write(&inside, "ignore = [\"GL101\"]\n").unwrap();
    let (text, _) = run_in(&repo.join("src"), &[]);
    assert!(
        !text.contains("GL101"),
        "the repository's own config: {text}"
    );
    if let Err(e) = std::os::unix::fs::chown(&inside, Some(54321), None) {
        eprintln!("not root ({e}): the foreign-owned case needs chown, and is not run here");
        return;
    }
    let (text, said) = run_in(&repo.join("src"), &[]);
    assert!(
        text.contains("GL101"),
        "another user's config was read: {text}"
    );
    assert!(
        said.contains(&format!(
            "gpulint: warning: {} is passed over: user 54321 owns it, not you",
            inside.display()
        )),
        "{said}"
    );
}

/// An argument that is not UTF-8 is a usage error (exit 2), never a panic (101).
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"profile-\xff.csv");
    for args in [
        vec![std::ffi::OsStr::new("check"), name],
        vec![
            std::ffi::OsStr::new("check"),
            std::ffi::OsStr::new(ZOO),
            std::ffi::OsStr::new("-o"),
            name,
        ],
        vec![name],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PATH", common::path_without_ncu())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", transcript(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("error:"),
            "{args:?}: {}",
            transcript(&out)
        );
    }
}

/// stderr a closed pipe (`gpulint ... 2>&1 | head` once head has exited) costs neither the
/// run nor its report: notes and warnings are dropped, the report is written, and the exit
/// status is the report's.
#[cfg(unix)]
#[test]
fn a_closed_stderr_never_costs_the_report() {
    let dir = common::scratch_dir("closed-stderr");
    let report = dir.join("report.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", ZOO, "--verbose", "--format", "json", "-o"])
        .arg(&report)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", common::path_without_ncu())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reading end closed before gpulint writes a word.
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{status}");
    let text = std::fs::read_to_string(&report).expect("the report was written");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(json["findings"].as_array().is_some_and(|f| !f.is_empty()));
}

/// `gpulint check` of the zoo with a config of `text`, given by `--config`.
fn check_zoo_with_config(text: &str) -> std::process::Output {
    let dir = common::scratch_dir("config-text");
    let config = dir.join("gpulint.toml");
    std::fs::write(&config, text).unwrap();
    gpulint(&["check", ZOO, "--config", config.to_str().unwrap()])
}

/// A bar that is no number in its range is refused (exit 2) naming the parameter, from
/// the command line and from a config: a NaN would turn its rule off without a word.
#[test]
fn a_parameter_out_of_its_range_is_refused() {
    for (param, range) in [
        ("uncoalesced-load.min_excess_share=nan", "0 to 1"),
        ("uncoalesced-load.min_excess_share=1.5", "0 to 1"),
        ("uncoalesced-load.min_memory_busy_pct=inf", "0 to 100"),
        ("uncoalesced-load.min_memory_busy_pct=-5", "0 to 100"),
        ("launch-bound.min_launches=-1", "0 or more"),
    ] {
        let out = gpulint(&["check", ZOO, "--param", param]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{param}: {err}");
        assert!(
            err.contains(&format!("--param {param}")) && err.contains(range),
            "{param}: {err}"
        );
    }
    let out = check_zoo_with_config("[params.uncoalesced-load]\nmin_excess_share = nan\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("field `params.uncoalesced-load`: min_excess_share = NaN"),
        "{err}"
    );
}

/// A config may give ncu options that shape the measurement, not ones that load a library
/// into the program or name the files ncu reads options from or writes to: those are the
/// command line's (`--ncu-arg`).
#[test]
fn a_config_cannot_hand_ncu_a_library_or_a_file() {
    for args in [
        r#"["--preload-library", "/tmp/x.so"]"#,
        r#"["--injection-path-64=/tmp"]"#,
        r#"["--section-folder", "/tmp/sections"]"#,
        r#"["--log-file", "/home/me/.bashrc"]"#,
        r#"["-o", "/tmp/report"]"#,
    ] {
        let out = check_zoo_with_config(&format!("ncu-args = {args}\n"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {err}");
        assert!(
            err.contains("field `ncu-args`") && err.contains("command line only"),
            "{args}: {err}"
        );
    }
    let out = check_zoo_with_config("ncu-args = [\"--clock-control\", \"none\"]\n");
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
}

#[test]
fn rules_dir_overrides_a_builtin_rule() {
    let dir = common::scratch_dir("rules");
    let text = std::fs::read_to_string(fixture("../rules/GL204-small-grid.toml"))
        .unwrap()
        .replace("severity = \"warning\"", "severity = \"error\"");
    std::fs::write(dir.join("small-grid.toml"), text).unwrap();
    let out = gpulint(&[
        "check",
        ZOO,
        "--format",
        "concise",
        "--rules",
        dir.to_str().unwrap(),
        "--select",
        "small-grid",
    ]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("error[GL204]"),
        "{}",
        transcript(&out)
    );
}

/// Each case: file content, and what the one error line must say.
#[test]
fn bad_input_exits_2_with_one_line_naming_the_file() {
    let dir = common::scratch_dir("bad");
    let header = std::fs::read_to_string(fixture("h200-zoo/min_raw_base.csv")).unwrap();
    let first_rows: String = header.lines().take(6).collect::<Vec<_>>().join("\n");
    let mut with_garbage_metric = String::new();
    for (i, line) in header.lines().enumerate() {
        if i == 5 {
            with_garbage_metric.push_str(&line.replacen("\"8,388,608\"", "\"12abc\"", 1));
        } else {
            with_garbage_metric.push_str(line);
        }
        with_garbage_metric.push('\n');
    }
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.csv", vec![], "empty"),
        (
            "garbage.bin",
            (0..4000u32).map(|i| (i * 7919 % 256) as u8).collect(),
            "binary",
        ),
        (
            "notncu.csv",
            b"name,value\nfoo,1\nbar,2\n".to_vec(),
            "no ncu CSV header",
        ),
        (
            "header_only.csv",
            header
                .lines()
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes(),
            "no kernel launch rows",
        ),
        (
            "report.ncu-rep",
            b"NVR\0\x02\0\0\0rest".to_vec(),
            "ncu --import",
        ),
        (
            "json.csv",
            br#"{"tool": "gpulint", "kernels": []}"#.to_vec(),
            "no ncu CSV header",
        ),
        (
            "badvalue.csv",
            with_garbage_metric.into_bytes(),
            "\"12abc\" is not a number",
        ),
        (
            "badid.csv",
            first_rows
                .replacen("\n\"0\",", "\n\"zero\",", 1)
                .into_bytes(),
            "field `ID`",
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        let out = gpulint(&["check", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", transcript(&out));
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err} should say {want}");
        assert!(out.stdout.is_empty(), "{name}: printed a report");
    }
    let missing = gpulint(&["check", "does/not/exist.csv"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does/not/exist.csv: cannot read"));
}

#[test]
fn a_bad_value_is_placed_by_line_and_column() {
    let dir = common::scratch_dir("place");
    let text = std::fs::read_to_string(fixture("h200-zoo/min_raw_base.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // Line 6 of the file is launch 0 (three ncu lines, header, units row).
    lines[5] = lines[5].replacen("\"8,388,608\"", "\"8,388,608x\"", 1);
    let path = dir.join("placed.csv");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = gpulint(&["check", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("placed.csv:6:"), "{err}");
    assert!(
        err.contains("l1tex__t_sectors_pipe_lsu_mem_global_op_"),
        "{err}"
    );
}

/// ncu on a European-locale machine: `.` groups thousands and `,` is the decimal mark.
/// Same capture, rewritten that way, must give the same findings.
#[test]
fn european_number_format_gives_the_same_findings() {
    let text = std::fs::read_to_string(fixture("h200-zoo/min_raw.csv")).unwrap();
    let european: String = text
        .lines()
        .map(|line| {
            if !line.starts_with("\"") || line.starts_with("\"ID\"") {
                return line.to_string();
            }
            line.split("\",\"")
                .map(|cell| {
                    let bare = cell.trim_matches('"');
                    if !bare.is_empty()
                        && bare
                            .chars()
                            .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
                    {
                        cell.replace(',', "\u{0}")
                            .replace('.', ",")
                            .replace('\u{0}', ".")
                    } else {
                        cell.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\",\"")
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(european.contains("\"8.388.608\""));
    let dir = common::scratch_dir("locale");
    let path = dir.join("eu.csv");
    std::fs::write(&path, &european).unwrap();
    let eu = gpulint::read_path(path.to_str().unwrap()).unwrap();
    let us = profile("h200-zoo/min_raw.csv");
    assert_eq!(warnings(&eu), warnings(&us));
    assert_eq!(
        eu.launches[1].metrics["duration_ns"],
        us.launches[1].metrics["duration_ns"]
    );
}

#[test]
fn crlf_bom_and_na_cells_are_read() {
    let text = std::fs::read_to_string(fixture("h200-zoo/min_raw_base.csv")).unwrap();
    let mut crlf = String::from("\u{feff}");
    for (i, line) in text.lines().enumerate() {
        // Launch 0 loses its bank-conflict counters: "n/a" is "not collected", never 0.
        let line = if i == 5 {
            line.replace("\"0\",\"0\",\"0\",\"0\"", "\"n/a\",\"n/a\",\"n/a\",\"n/a\"")
        } else {
            line.to_string()
        };
        crlf.push_str(&line);
        crlf.push_str("\r\n");
    }
    let dir = common::scratch_dir("crlf");
    let path = dir.join("crlf.csv");
    std::fs::write(&path, &crlf).unwrap();
    let p = gpulint::read_path(path.to_str().unwrap()).unwrap();
    let base = profile("h200-zoo/min_raw_base.csv");
    assert_eq!(p.launches.len(), base.launches.len());
    assert_eq!(
        p.launches[0].name,
        "copy_coalesced(const float *, float *, unsigned long)"
    );
    assert_eq!(warnings(&p), warnings(&base));
}

#[test]
fn min_share_takes_a_percentage_with_or_without_the_sign() {
    let ok = gpulint(&["check", ZOO, "--min-share", "5%", "--format", "concise"]);
    assert_eq!(ok.status.code(), Some(1), "{}", transcript(&ok));
    for bad in ["150", "-1", "five"] {
        let out = gpulint(&["check", ZOO, &format!("--min-share={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", transcript(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--min-share"),
            "{}",
            transcript(&out)
        );
    }
}

#[test]
fn mistakes_get_the_right_diagnosis() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["chekc", ZOO],
            "unknown command `chekc`; did you mean `check`?",
        ),
        // The nearest command, not the first within two edits (`run` is two from `ruls`).
        (&["ruls"], "unknown command `ruls`; did you mean `rules`?"),
        (
            &["metric"],
            "unknown command `metric`; did you mean `metrics`?",
        ),
        (
            &[ZOO],
            "looks like a profile, not a program; use `gpulint check fixtures/h200-zoo/full_raw_base.csv`",
        ),
        (
            &["check", ZOO, "--select", "GL999"],
            "--select GL999: no rule matches",
        ),
        (
            &["check", ZOO, "--ignore", "nope"],
            "--ignore nope: no rule matches",
        ),
        (
            &["check", ZOO, "--param", "small-grid.nope=1"],
            "--param small-grid.nope=1: rule small-grid has no parameter \"nope\"",
        ),
        (
            &["check", ZOO, "--param", "smal-grid.min_fill_pct=1"],
            "--param smal-grid.min_fill_pct=1: no rule \"smal-grid\" (did you mean `small-grid`?)",
        ),
    ];
    for (args, want) in cases {
        let out = gpulint(args);
        let text = transcript(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains(want), "{args:?}: {text}");
    }
}

#[test]
fn doctor_reports_only_the_checks_it_made() {
    let out = gpulint(&["doctor", "--ncu", "/nonexistent/ncu"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(text.contains("FAIL  ncu"), "{text}");
    assert!(text.contains("skip  counters  not checked"), "{text}");
    assert!(!text.contains("ok    clocks"), "{text}");
}

#[test]
fn an_output_in_a_missing_folder_names_the_folder() {
    let out = gpulint(&["baseline", ZOO, "-o", "/nonexistent-dir/b.json"]);
    let text = transcript(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("the folder /nonexistent-dir does not exist"),
        "{text}"
    );
    assert!(!text.contains(".tmp"), "{text}");
}

#[test]
fn several_inputs_show_their_file_and_one_file_is_read_once() {
    let two = gpulint(&[
        "check",
        "fixtures/h200-samples/pipeline_base.csv",
        "fixtures/h200-samples/pipeline_regressed.csv",
        "--color",
        "never",
    ]);
    let text = String::from_utf8_lossy(&two.stdout);
    assert!(text.contains("pipeline_base.csv: scale_rows"), "{text}");
    assert!(
        text.contains("pipeline_regressed.csv: scale_rows"),
        "{text}"
    );
    let twice = gpulint(&["check", ZOO, ZOO, "--format", "json", "--exit-zero"]);
    let doc: serde_json::Value = serde_json::from_slice(&twice.stdout).unwrap();
    assert_eq!(doc["sources"].as_array().unwrap().len(), 1);
    assert!(String::from_utf8_lossy(&twice.stderr).contains("given more than once"));
}

#[test]
fn every_help_describes_every_argument_and_ends_with_the_exit_status() {
    let commands = [
        "check",
        "run",
        "baseline",
        "diff",
        "roofline",
        "metrics",
        "rules",
        "explain",
        "keys",
        "test-rules",
        "doctor",
    ];
    let bare = regex::Regex::new(
        r"^\s+(-\w, )?(--[\w-]+|<[A-Z_]+>)( <[A-Z_.=]+>)?(\.\.\.)?\s*(\[[^\]]*\]\s*)*$",
    )
    .unwrap();
    for c in commands {
        let out = gpulint(&[c, "-h"]);
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            assert!(
                !bare.is_match(line),
                "`gpulint {c} -h`: no description for {line:?}"
            );
        }
        assert!(
            text.lines().any(|l| l.starts_with("Exit status: 0 "))
                && text.trim_end().ends_with("or usage."),
            "`gpulint {c} -h` does not end with the exit status:\n{text}"
        );
    }
}

#[test]
fn output_goes_to_the_file_and_stdout_stays_empty() {
    let dir = common::scratch_dir("output");
    let sarif = dir.join("report.sarif");
    let _ = std::fs::remove_file(&sarif);
    let out = gpulint(&[
        "check",
        ZOO,
        "--format",
        "sarif",
        "-o",
        sarif.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(out.stdout.is_empty(), "{}", transcript(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    for (args, name) in [
        (vec!["metrics"], "metrics.txt"),
        (vec!["rules", "--format", "json"], "rules.json"),
        (vec!["roofline", ZOO, "--format", "csv"], "roofline.csv"),
    ] {
        let path = dir.join(name);
        let mut all = args.clone();
        all.extend(["-o", path.to_str().unwrap()]);
        let out = gpulint(&all);
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        assert!(out.stdout.is_empty(), "{}", transcript(&out));
        assert!(std::fs::metadata(&path).unwrap().len() > 0, "{name}");
    }
    // Never over an input; nothing written when the command fails.
    let out = gpulint(&["check", ZOO, "-o", ZOO]);
    assert_eq!(out.status.code(), Some(2));
    assert!(transcript(&out).contains("refusing to write the report over an input"));
    let never = dir.join("never.txt");
    let out = gpulint(&["check", "/nonexistent.csv", "-o", never.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!never.exists());
}

/// Each command takes the options it honours: one it would ignore is refused (exit 2),
/// not accepted and dropped.
#[test]
fn options_a_command_would_ignore_are_refused() {
    let csv = fixture("h200-zoo/min_raw_base.csv");
    let csv = csv.to_str().unwrap();
    for args in [
        vec!["diff", csv, csv, "--format", "lines"],
        vec!["diff", csv, csv, "--min-judged", "50"],
        vec!["diff", csv, csv, "--svg", "x.svg"],
        vec!["diff", csv, csv, "--fail-on", "never"],
        vec!["diff", csv, csv, "--top", "3"],
        vec!["baseline", csv, "--format", "sarif"],
        vec!["baseline", csv, "--svg", "x.svg"],
        vec!["baseline", csv, "--exit-zero"],
        vec!["metrics", "--svg", "x.svg"],
        vec!["metrics", "--min-share", "5"],
    ] {
        let out = gpulint(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", transcript(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("unexpected argument")
                || stderr.contains("invalid value")
                || stderr.contains(&format!("`gpulint {}` takes no option", args[0])),
            "{args:?}: {}",
            transcript(&out)
        );
        // An option that belongs to other commands says which, not clap's tip to pass
        // it as a value.
        assert!(!stderr.contains("tip: to pass"), "{args:?}: {stderr}");
        assert!(!std::path::Path::new("x.svg").exists());
    }
    // What each does take, it honours.
    let list = gpulint(&["metrics"]);
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .trim()
        .split(',')
        .map(String::from)
        .collect();
    let json = gpulint(&["metrics", "--format", "json"]);
    let parsed: Vec<String> = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(parsed, names);
    let lines = gpulint(&["metrics", "--format", "lines", "--select", "GL1"]);
    let from_lines: Vec<&str> = std::str::from_utf8(&lines.stdout)
        .unwrap()
        .lines()
        .collect();
    assert!(!from_lines.is_empty() && from_lines.len() < names.len());
    let gate = gpulint(&[
        "diff",
        csv,
        csv,
        "--min-share",
        "5%",
        "--select",
        "GL1",
        "-j",
        "1",
    ]);
    assert_eq!(gate.status.code(), Some(0), "{}", transcript(&gate));
}

/// `gpulint --format json ./prog`: an option before any command is a usage error (status
/// 2) that says where options go.
#[test]
fn an_option_before_the_command_gets_a_hint() {
    let out = gpulint(&["--format", "json", "./my_kernel"]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unexpected argument '--format'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: options come after a command: `gpulint run [OPTIONS] -- PROG ARGS`"),
        "{stderr}"
    );
}

/// An export with one ncu section: 20 of the 21 rules that apply cannot judge it. Every
/// format says so, and `--min-judged` turns it into a failure.
#[test]
fn a_thin_export_is_visible_in_every_format() {
    let thin = "fixtures/h200-text/details_Occupancy_knn.csv";
    let said = "1 of 21 rules could judge; 20 could not for missing metrics: bank-conflicts,";
    for (format, mark) in [
        ("human", said),
        ("concise", "note: 1 of 21 rules could judge"),
        ("markdown", "> **Not judged:** 1 of 21 rules could judge"),
        (
            "github",
            "::notice title=gpulint: not every rule could judge::1 of 21",
        ),
        ("sarif", "\"toolExecutionNotifications\""),
        ("json", "\"judged_pct\": 4.76"),
    ] {
        let out = gpulint(&["check", thin, "--format", format, "--color", "never"]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", transcript(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains(mark), "{format}: {stdout}");
    }
    let sarif: serde_json::Value =
        serde_json::from_slice(&gpulint(&["check", thin, "--format", "sarif"]).stdout).unwrap();
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().unwrap().len(), 20, "{notes}");
    assert_eq!(notes[0]["associatedRule"]["id"], "GL401", "{notes}");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("bank-conflicts could not judge: needs `bank_conflict_share`")
    );

    let out = gpulint(&["check", thin, "--min-judged", "100", "--format", "concise"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        transcript(&out).contains("5% of the rules could judge, under --min-judged 100"),
        "{}",
        transcript(&out)
    );
    assert_eq!(
        gpulint(&["check", thin, "--min-judged", "4.7%"])
            .status
            .code(),
        Some(0)
    );
    // `--set full` has every metric but serial-loads' load latency (gpulint's own list has
    // it): the gate names that rule, and every other rule judges.
    let out = gpulint(&[
        "check",
        "fixtures/h200-zoo/full_raw.csv",
        "--min-judged",
        "100",
        "--exit-zero",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        transcript(&out).contains("could not for missing metrics: serial-loads"),
        "{}",
        transcript(&out)
    );
    let out = gpulint(&[
        "check",
        "fixtures/h200-zoo/full_raw.csv",
        "--min-judged",
        "100",
        "--ignore",
        "serial-loads",
        "--exit-zero",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    // The same set with the latency added by --metrics: every rule judges.
    let out = gpulint(&[
        "check",
        "fixtures/h200-serial-loads/full_plus_latency_latency_pairs.csv",
        "--min-judged",
        "100",
        "--exit-zero",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(
        !transcript(&out).contains("could not"),
        "{}",
        transcript(&out)
    );
    assert!(
        !transcript(&out).contains("could not"),
        "{}",
        transcript(&out)
    );
    assert_eq!(
        gpulint(&["check", thin, "--min-judged", "150"])
            .status
            .code(),
        Some(2)
    );
}

/// Each diagnosis says what is true: a selection none of whose rules applies is not blamed
/// on the export, a misspelt name gets the nearest one, a file of the wrong kind is named.
#[test]
fn diagnoses_say_what_is_true() {
    let full = "fixtures/h200-zoo/full_raw.csv";
    let run = |args: &[&str]| {
        let out = gpulint(args);
        (out.status.code(), transcript(&out))
    };
    let (code, text) = run(&["check", full, "--select", "GL205"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("failed-launch judges only launches that failed, and none did")
            && !text.contains("lacks"),
        "{text}"
    );
    let (code, text) = run(&["check", full, "--select", "GL900"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("only the regression gate (GL900)"), "{text}");

    let empty = common::scratch_dir("no-rules");
    let (code, text) = run(&["test-rules", empty.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("no rule files (*.toml) here"), "{text}");
    let (code, text) = run(&["test-rules", "rules/GL101-uncoalesced-load.toml"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("10 passed, 0 failed"), "{text}");

    let (code, text) = run(&["explain", "uncoalesced-laod"]);
    assert_eq!(code, Some(2));
    assert!(
        text.contains("(did you mean `uncoalesced-load`?)"),
        "{text}"
    );
    let (_, text) = run(&["check", full, "--select", "small-grd"]);
    assert!(text.contains("(did you mean `small-grid`?)"), "{text}");
    let config = common::scratch_file("typo.toml", b"[severity]\n\"bank-conflict\" = \"info\"\n");
    let (code, text) = run(&["check", full, "--config", config.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(text.contains("(did you mean `bank-conflicts`?)"), "{text}");

    // No ncu on PATH here: the missing program is what is wrong first.
    let (code, text) = run(&["run", "--", "./no-such-program"]);
    assert_eq!(code, Some(2));
    assert!(
        text.contains("program ./no-such-program: no such file"),
        "{text}"
    );

    let (code, text) = run(&[
        "check",
        "fixtures/h200-zoo/full_source_cuda_sass_strided.csv",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        text.contains("this is an ncu source page (`--page source`)"),
        "{text}"
    );
}

#[test]
fn the_same_bytes_under_two_names_are_read_once() {
    let copy = common::scratch_file(
        "download (1).csv",
        &std::fs::read(fixture("h200-zoo/full_raw.csv")).unwrap(),
    );
    let out = gpulint(&[
        "check",
        "fixtures/h200-zoo/full_raw.csv",
        copy.to_str().unwrap(),
        "--format",
        "json",
        "--exit-zero",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(transcript(&out).contains("holds the same bytes as fixtures/h200-zoo/full_raw.csv"));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["sources"].as_array().unwrap().len(), 1);
    assert_eq!(r["sources"][0]["launch_count"], 28);
    // Different bytes of the same size are two profiles.
    let out = gpulint(&[
        "check",
        "fixtures/h200-zoo/full_raw.csv",
        "fixtures/h200-zoo/full_raw_base.csv",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["sources"].as_array().unwrap().len(), 2);
}

/// One vocabulary: `--chip` takes GPU names from the GPU table, `diff` has `concise`, and
/// `rules` calls its one-line-per-rule format `human` like the other commands.
#[test]
fn one_vocabulary_across_commands() {
    let by_chip = gpulint(&["metrics", "--chip", "gh100"]);
    for name in ["h200", "H100", "H200 SXM"] {
        let out = gpulint(&["metrics", "--chip", name]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", transcript(&out));
        assert_eq!(out.stdout, by_chip.stdout, "{name}");
    }
    let rtx = gpulint(&["metrics", "--chip", "rtx 5090"]);
    assert_eq!(rtx.stdout, gpulint(&["metrics", "--chip", "gb202"]).stdout);
    // A100 40GB and 80GB are both ga100: one chip, so the name is enough.
    assert_eq!(
        gpulint(&["metrics", "--chip", "a100"]).status.code(),
        Some(0)
    );
    let out = gpulint(&["metrics", "--chip", "h300"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        transcript(&out).contains("or name the GPU: h200"),
        "{}",
        transcript(&out)
    );

    assert_eq!(
        gpulint(&["rules", "--format", "human"]).stdout,
        gpulint(&["rules", "--format", "table"]).stdout
    );
    assert_eq!(
        gpulint(&["metrics", "--format", "human"]).stdout,
        gpulint(&["metrics", "--format", "lines"]).stdout
    );
    let base = "fixtures/h200-samples/pipeline_base.csv";
    let cand = "fixtures/h200-samples/pipeline_regressed.csv";
    let out = gpulint(&["diff", base, cand, "--format", "concise"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(": error[GL900] scale_rows: sectors_per_request_ld regressed from 4 to 32"),
        "{text}"
    );
    assert!(
        text.contains(": error[GL101] scale_rows: new uncoalesced-load finding"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "FAIL (2 of 3 baseline kernel(s) compared, 80.8% of its GPU time): 2 gated \
             metric(s) regressed; 1 new finding(s); only 80.8% of the baseline's GPU time was \
             compared (2 of 3 kernel(s)), under --min-compared 90%\n"
        ),
        "{text}"
    );
    let same = gpulint(&["diff", base, base, "--format", "concise"]);
    assert_eq!(
        String::from_utf8(same.stdout).unwrap(),
        "PASS (3 of 3 baseline kernel(s) compared, 100.0% of its GPU time)\n"
    );
}

/// `gpulint gpus` prints the device table, an entry a block, each one the library finds by
/// its name, with the same chip (src/commands/rules_docs.rs checks every entry is there).
#[test]
fn gpus_prints_the_devices_the_library_knows() {
    let out = gpulint(&["gpus"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let heads: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert!(heads.len() >= 10, "{text}");
    for head in heads {
        let (name, rest) = head.split_once(" (chip ").unwrap();
        let chip = rest.split(',').next().unwrap();
        let g = gpulint::gpu_peaks(name).unwrap_or_else(|| panic!("{name} not found"));
        assert_eq!(g.chip, chip, "{head}");
    }
}

/// `--top N` lists the N findings with the most time at stake in every format, and each
/// says how many it left out.
#[test]
fn top_limits_every_format() {
    let all = gpulint(&["check", ZOO, "--format", "json", "--exit-zero"]);
    let v: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    let total = v["findings"].as_array().unwrap().len();
    assert!(total > 2);
    let left = format!(
        "{} more finding(s) with less time at stake (--top 2)",
        total - 2
    );
    for format in ["concise", "markdown", "github", "html"] {
        let out = gpulint(&[
            "check",
            ZOO,
            "--top",
            "2",
            "--format",
            format,
            "--exit-zero",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(&left), "{format}:\n{text}");
    }
    // The human report counts the cards it would list: its info is one table anyway.
    let out = gpulint(&["check", ZOO, "--top", "2", "--exit-zero"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let cards = text.lines().filter(|l| l.starts_with("warning[")).count();
    assert_eq!(cards, 2, "{text}");
    assert!(
        text.contains("more finding(s) with less time at stake (--top 2)"),
        "{text}"
    );
    let out = gpulint(&[
        "check",
        ZOO,
        "--top",
        "2",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 2);
    assert_eq!(v["findings_left_out_by_top"], total - 2);
    let out = gpulint(&[
        "check",
        ZOO,
        "--top",
        "2",
        "--format",
        "sarif",
        "--exit-zero",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["results"].as_array().unwrap().len(), 2);
}

/// Several files are one report, and it says so (headline and stderr); a details page
/// that left rules unjudged gets a one-line hint at the raw page, without --verbose.
#[test]
fn merged_files_and_a_details_page_are_said() {
    let out = gpulint(&[
        "check",
        ZOO,
        "fixtures/h200-samples/pipeline_base.csv",
        "--exit-zero",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with(", in 2 files read together"),
        "{text}"
    );
    assert!(err.contains("gpulint: 2 files are one report"), "{err}");
    let one = gpulint(&["check", ZOO, "--exit-zero"]);
    assert!(!String::from_utf8_lossy(&one.stderr).contains("files are one report"));
    assert!(!String::from_utf8_lossy(&one.stdout).contains("hint: this is a details page"));

    let out = gpulint(&["check", "fixtures/h200-zoo/full_details.csv", "--exit-zero"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.trim_end().lines().last().unwrap().starts_with(
            "hint: this is a details page, which shows each section's headline values only"
        ),
        "{text}"
    );
    assert!(
        text.contains("which the 13 rule(s) not judged may find there"),
        "{text}"
    );
}

/// GL101 and GL102 on the strided copy are both capped by how busy the memory system is:
/// one time at stake, claimed once. The store's card says it shares the load's, so the
/// two do not read as twice the gain.
#[test]
fn one_stake_is_claimed_once() {
    let out = gpulint(&["check", ZOO, "--format", "json", "--exit-zero"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let on = |rule: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| {
                f["rule"] == rule && f["kernel"].as_str().unwrap().starts_with("copy_strided")
            })
            .unwrap()
            .clone()
    };
    let (load, store) = (on("uncoalesced-load"), on("uncoalesced-store"));
    assert_eq!(load["time_at_stake_ns"], store["time_at_stake_ns"]);
    assert!(load.get("stake_shared_with").is_none(), "{load}");
    assert_eq!(store["stake_shared_with"], "GL101");
    let text = String::from_utf8(gpulint(&["check", ZOO]).stdout).unwrap();
    assert_eq!(
        text.matches("at stake: up to 3,237.6 us, the same time as GL101's above")
            .count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("at stake: up to 3,237.6 us\n").count(),
        1,
        "{text}"
    );
}
