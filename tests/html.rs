//! `--format html`: one self-contained page. Checked as text (nothing loaded from
//! elsewhere, small, every warning present) and rendered in a real browser (Debian's
//! chromium-headless-shell, which .ci/run installs): the rendered DOM holds every warning,
//! the chart and the top kernels, each chart point has its kernel's row, and the console
//! has no errors, with the network cut off.

mod common;

use std::process::Command;

use common::{gpulint, scratch_dir, transcript};

const PROFILES: [&str; 2] = [
    "fixtures/h200-zoo/full_raw_base.csv",
    "fixtures/h200-samples/torch_train.csv",
];

/// The report as HTML, and the warnings' (code, short kernel name) from the JSON.
fn report(profile: &str, dir: &std::path::Path) -> (std::path::PathBuf, Vec<(String, String)>) {
    let path = dir.join(format!(
        "{}.html",
        profile.rsplit('/').next().unwrap().trim_end_matches(".csv")
    ));
    let out = gpulint(&[
        "check",
        profile,
        "--format",
        "html",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(
        matches!(out.status.code(), Some(0) | Some(1)),
        "{}",
        transcript(&out)
    );
    let json = gpulint(&["check", profile, "--format", "json", "--exit-zero"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let warnings = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                gpulint::short_name(f["kernel"].as_str().unwrap()),
            )
        })
        .collect();
    (path, warnings)
}

/// What HTML escapes a name to, as the page holds it.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[test]
fn the_page_is_self_contained_small_and_complete() {
    let dir = scratch_dir("html-text");
    for profile in PROFILES {
        let (path, warnings) = report(profile, &dir);
        let html = std::fs::read_to_string(&path).unwrap();
        assert!(html.len() < 1 << 20, "{profile}: {} bytes", html.len());
        for external in [
            "src=",
            "<link",
            "@import",
            "url(",
            "href=\"http",
            "href=\"//",
        ] {
            assert!(!html.contains(external), "{profile}: {external}");
        }
        assert!(!warnings.is_empty(), "{profile}");
        for (code, kernel) in &warnings {
            assert!(
                html.contains(&format!("<b>{code} ")) && html.contains(&escaped(kernel)),
                "{profile}: {code} on {kernel}"
            );
        }
        assert!(html.contains("<svg"), "{profile}: the roofline chart");
    }
}

/// The browser, where there is one; `.ci/run` installs it on Linux, so there it must be
/// found (the hosted macOS and Windows jobs have none).
fn browser() -> Option<&'static str> {
    ["chromium-headless-shell", "chromium"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
}

#[test]
fn the_page_renders_in_a_browser_without_errors() {
    let Some(browser) = browser() else {
        assert!(
            std::env::var_os("CI").is_none() || !cfg!(target_os = "linux"),
            "CI must have chromium-headless-shell (.ci/run installs it)"
        );
        println!(
            "SKIPPED: no chromium-headless-shell here (apt-get install chromium-headless-shell)"
        );
        return;
    };
    let dir = scratch_dir("html-browser");
    let points = regex::Regex::new(r#"data-launch="(\d+)""#).unwrap();
    for profile in PROFILES {
        let (path, warnings) = report(profile, &dir);
        let out = Command::new(browser)
            .args([
                "--no-sandbox",
                "--disable-gpu",
                "--enable-logging=stderr",
                "--v=0",
                // Nothing may be fetched: every host name fails to resolve.
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--dump-dom",
            ])
            .arg(format!("file://{}", path.display()))
            .env("HOME", &*dir)
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&out.stdout);
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(dom.contains("<h1>gpulint report</h1>"), "{profile}: {log}");
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(console.is_empty(), "{profile}: console says {console:?}");
        for (code, kernel) in &warnings {
            assert!(
                dom.contains(&format!("<b>{code} ")) && dom.contains(&escaped(kernel)),
                "{profile}: {code} on {kernel} not in the rendered page"
            );
        }
        assert!(dom.contains("<svg"), "{profile}: no chart");
        // Every point of the chart finds its kernel's row.
        let ids: Vec<&str> = points
            .captures_iter(&dom)
            .map(|c| c.get(1).unwrap().as_str())
            .collect();
        assert!(!ids.is_empty(), "{profile}: no points");
        for id in ids {
            assert!(
                dom.contains(&format!("<tr id=\"k-{id}\"")),
                "{profile}: point {id}"
            );
        }
        // The top kernel by GPU time has its row.
        let table = dom.split("id=\"kernels\"").nth(1).unwrap_or("");
        assert!(table.matches("<tr id=\"k-").count() >= 3, "{profile}");
    }
}

/// A PyTorch report's info findings are one table (rule, kernels, time at stake, why
/// info) with their cards folded under it: the page opens on the warnings. `--verbose`
/// shows every card whole, and JSON keeps each finding.
#[test]
fn info_findings_are_one_table_until_verbose() {
    let dir = scratch_dir("html-info");
    let file = "fixtures/h200-by-time/default_transformer.csv";
    let json = gpulint(&["check", file, "--format", "json", "--exit-zero"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let info: Vec<_> = (v["findings"].as_array().unwrap().iter())
        .filter(|f| f["severity"] == "info")
        .collect();
    // 30: among them four FP32 GEMMs the sample left out, judged from the launch trace.
    assert_eq!(info.len(), 30, "{info:?}");
    let not_profiled = (info.iter())
        .filter(|f| f["profiled_launch_count"] == 0 && f["rule"] == "fp32-gemm-on-cuda-cores")
        .count();
    assert_eq!(not_profiled, 4, "{info:?}");
    assert!(
        info.iter().all(|f| f["info_because"].is_string()),
        "{info:?}"
    );
    let page = |extra: &[&str]| {
        let path = dir.join(format!("t{}.html", extra.len()));
        let mut args = vec!["check", file, "--format", "html", "--exit-zero", "-o"];
        args.push(path.to_str().unwrap());
        args.extend(extra);
        let out = gpulint(&args);
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        std::fs::read_to_string(&path).unwrap()
    };
    let html = page(&[]);
    let table = html.find("<table class=\"info\">").expect("the info table");
    // 30 findings; instantiations of one GEMM with the same finding share a card.
    assert!(html.contains("<h3>Info: 30 finding(s)"), "{html}");
    let folded = html
        .find("<details><summary>the 22 info card(s) in full")
        .unwrap();
    // No info card before the fold; every one inside it.
    let cards = |s: &str| s.matches("<section class=\"finding info\"").count();
    assert_eq!(cards(&html[..folded]), 0);
    assert_eq!(cards(&html[folded..]), 22);
    assert!(table < folded);
    let rows = html[table..folded].matches("<tr><td>").count();
    // The left-out GEMM under 1% of the GPU time is a row of its own.
    assert_eq!(rows, 5, "{}", &html[table..folded]);
    assert!(html[table..folded].contains("the same fix as the GL601 warning"));
    let verbose = page(&["--verbose"]);
    assert!(!verbose.contains("<table class=\"info\">"));
    assert_eq!(cards(&verbose), 22);
}
