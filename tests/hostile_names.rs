//! Names in a profile are data from elsewhere. A crafted export (the real pipeline
//! captures with two kernels renamed: one to a name holding a newline, a GitHub workflow
//! command and an ESC colour sequence, one to a name that is itself a workflow command)
//! cannot write a workflow command or an escape sequence into any format, from `check`
//! or from `diff`, nor can a crafted baseline.

mod common;

use common::{gpulint, scratch_dir, transcript};

const INJECTED_LINE: &str = "scale_rows\n::error file=x::pwned\u{1b}[31m(int)";
const INJECTED_COMMAND: &str = "::warning title=t::injected(float *)";

fn hostile(fixture: &str, dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(common::fixture(fixture)).unwrap();
    let crafted = text
        .replace(
            "\"scale_rows(const float *, float *, unsigned long, int)\"",
            &format!("\"{INJECTED_LINE}\""),
        )
        .replace(
            "\"add_bias(float *, unsigned long, float)\"",
            &format!("\"{INJECTED_COMMAND}\""),
        );
    assert_ne!(crafted, text, "{fixture}: the names were replaced");
    let path = dir.join(fixture.rsplit('/').next().unwrap());
    std::fs::write(&path, crafted).unwrap();
    path.to_str().unwrap().to_string()
}

/// No ESC or other control byte but newlines, and no line that a runner takes as a
/// command unless gpulint wrote it (`github` format: its own annotations only).
fn assert_inert(what: &str, out: &std::process::Output, github: bool) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("pwned"), "{what}: the name is shown: {text}");
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\r'),
        "{what}: a control character got through: {text:?}"
    );
    for line in text.lines() {
        let t = line.trim_start();
        assert!(!t.starts_with("##["), "{what}: {line}");
        if github {
            assert!(
                !t.starts_with("::error file=x") && !t.starts_with("::warning title=t::"),
                "{what}: {line}"
            );
        } else {
            assert!(!t.starts_with("::"), "{what}: {line}");
        }
    }
}

const FORMATS: [&str; 6] = ["human", "concise", "json", "markdown", "github", "sarif"];

#[test]
fn a_crafted_name_is_inert_in_every_check_format() {
    let dir = scratch_dir("hostile-check");
    let cand = hostile("h200-samples/pipeline_regressed.csv", &dir);
    for format in FORMATS.into_iter().chain(["html"]) {
        // --color always: escapes of gpulint's own are allowed only where asked for, and
        // never inside a name; so check with colour off, as CI logs are.
        let out = gpulint(&["check", &cand, "--format", format, "--color", "never"]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        assert_inert(
            &format!("check --format {format}"),
            &out,
            format == "github",
        );
    }
}

#[test]
fn a_crafted_name_is_inert_in_every_diff_format() {
    let dir = scratch_dir("hostile-diff");
    let base = hostile("h200-samples/pipeline_base.csv", &dir);
    let cand = hostile("h200-samples/pipeline_regressed.csv", &dir);
    for format in FORMATS {
        let out = gpulint(&["diff", &base, &cand, "--format", format, "--color", "never"]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        assert_inert(&format!("diff --format {format}"), &out, format == "github");
    }
}

/// A committed baseline is a file a pull request can change.
#[test]
fn a_crafted_baseline_is_inert() {
    let dir = scratch_dir("hostile-baseline");
    let base = dir.join("b.json");
    let out = gpulint(&[
        "baseline",
        "fixtures/h200-samples/pipeline_base.csv",
        "-o",
        base.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let json = std::fs::read_to_string(&base).unwrap();
    let escaped = serde_json::to_string(INJECTED_LINE).unwrap();
    let crafted = json.replace(
        "\"scale_rows(const float *, float *, unsigned long, int)\"",
        &escaped,
    );
    std::fs::write(&base, crafted).unwrap();
    let cand = hostile("h200-samples/pipeline_regressed.csv", &dir);
    for format in FORMATS {
        let out = gpulint(&[
            "diff",
            base.to_str().unwrap(),
            &cand,
            "--format",
            format,
            "--color",
            "never",
        ]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        assert_inert(
            &format!("diff of a baseline, {format}"),
            &out,
            format == "github",
        );
    }
}

/// A file name is data from elsewhere too (a profile saved by another tool, a checkout):
/// one that holds a newline and a workflow command cannot start a line of its own in any
/// format of `check` or `diff`.
#[cfg(unix)]
#[test]
fn a_crafted_file_name_is_inert_in_every_format() {
    let dir = scratch_dir("hostile-path");
    let path = dir.join("run\n::error file=x::pwned.csv");
    std::fs::copy(
        common::fixture("h200-samples/pipeline_regressed.csv"),
        &path,
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let base = common::fixture("h200-samples/pipeline_base.csv");
    let no_injected_line = |what: &str, text: &[u8]| {
        for line in String::from_utf8_lossy(text).lines() {
            assert!(!line.starts_with("::error file=x"), "{what}: {line:?}");
        }
    };
    for format in FORMATS {
        let out = gpulint(&["check", file, "--format", format, "--color", "never"]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        no_injected_line(&format!("check {format}"), &out.stdout);
        no_injected_line(&format!("check {format}, stderr"), &out.stderr);
        let out = gpulint(&[
            "diff",
            base.to_str().unwrap(),
            file,
            "--format",
            format,
            "--color",
            "never",
            "--min-compared",
            "0",
        ]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        no_injected_line(&format!("diff {format}"), &out.stdout);
    }
}
