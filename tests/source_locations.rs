//! With a source page, SARIF results and GitHub annotations point at the CUDA line behind
//! a finding, relative to the repository (`--source-root`), and keep the profile row as a
//! related location: code scanning shows them on the changed `.cu` lines. The fixtures
//! are real: the zoo's raw page and copy_strided's source page, captured with -lineinfo
//! from /work/steering/zoo/zoo.cu.

mod common;

use serde_json::Value;

fn check(format: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "check",
        "fixtures/h200-zoo/full_raw_base.csv",
        "--source-page",
        "fixtures/h200-zoo/full_source_cuda_sass_strided.csv",
        "--select",
        "uncoalesced-load",
        "--format",
        format,
    ];
    args.extend(extra);
    let out = common::gpulint(&args);
    assert_eq!(out.status.code(), Some(1), "{}", common::transcript(&out));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn sarif_results_sit_on_the_cuda_line() {
    let doc: Value =
        serde_json::from_str(&check("sarif", &["--source-root", "/work/steering"])).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let strided = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("copy_strided")
        })
        .unwrap();
    let loc = &strided["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "zoo/zoo.cu");
    assert_eq!(loc["region"]["startLine"], 26);
    let row = &strided["relatedLocations"][0]["physicalLocation"];
    assert_eq!(
        row["artifactLocation"]["uri"],
        "fixtures/h200-zoo/full_raw_base.csv"
    );
    // A kernel without a source page keeps its profile row.
    let other = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("gather_random")
        })
        .unwrap();
    assert_eq!(
        other["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/h200-zoo/full_raw_base.csv"
    );
    assert!(other.get("relatedLocations").is_none());
}

#[test]
fn github_annotations_use_the_cuda_file_and_line() {
    let text = check("github", &["--source-root", "/work/steering/zoo"]);
    let line = text
        .lines()
        .find(|l| l.contains("in copy_strided"))
        .unwrap();
    assert!(line.starts_with("::warning file=zoo.cu,line=26,"), "{line}");
    // Outside the source root, the path stays as the source page gives it.
    let text = check("github", &["--source-root", "/elsewhere"]);
    assert!(
        text.contains("::warning file=/work/steering/zoo/zoo.cu,line=26,"),
        "{text}"
    );
}
