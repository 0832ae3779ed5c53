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

/// `gpulint check PROFILE --source-page PAGE --select RULE` in `format`, the source root the
/// checkout the fixtures were captured in: what the suggested-edit tests read.
fn with_source_root(profile: &str, page: &str, rule: &str, format: &str) -> String {
    let out = common::gpulint(&[
        "check",
        profile,
        "--source-page",
        page,
        "--select",
        rule,
        "--source-root",
        "/work/main",
        "--exit-zero",
        "--format",
        format,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
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

#[test]
fn sarif_uris_are_percent_encoded_and_fingerprints_name_the_file() {
    let dir = common::scratch_dir("sarif-uri");
    let odd = dir.join("my profile,v1%.csv");
    std::fs::copy(common::fixture("h200-zoo/min_raw_base.csv"), &odd).unwrap();
    let plain = dir.join("plain.csv");
    std::fs::copy(common::fixture("h200-zoo/min_raw_base.csv"), &plain).unwrap();
    let out = common::gpulint(&[
        "check",
        odd.to_str().unwrap(),
        plain.to_str().unwrap(),
        "--format",
        "sarif",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let uris: Vec<&str> = results
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        uris.iter()
            .any(|u| u.ends_with("/my%20profile%2Cv1%25.csv")),
        "{uris:?}"
    );
    assert!(
        uris.iter()
            .all(|u| u.starts_with("file:///") && !u.contains(' '))
    );
    // The same kernel and rule in two files are two alerts.
    let prints: std::collections::HashSet<&str> = results
        .iter()
        .map(|r| r["partialFingerprints"]["gpulint/v1"].as_str().unwrap())
        .collect();
    assert_eq!(prints.len(), results.len());
}

#[test]
fn relative_paths_are_relative_to_srcroot() {
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-zoo/min_raw_base.csv",
        "--format",
        "sarif",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let loc = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], "fixtures/h200-zoo/min_raw_base.csv");
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");
}

/// Standard input is no file: its findings are described, not given a made-up URI.
#[test]
fn stdin_is_described_not_given_a_uri() {
    let csv = std::fs::read(common::fixture("h200-zoo/min_raw_base.csv")).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "-", "--format", "sarif", "--exit-zero"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &csv).unwrap();
    let out = child.wait_with_output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let loc = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert!(loc.get("uri").is_none(), "{loc}");
    assert_eq!(loc["description"]["text"], "<stdin>");
}

/// Findings about waiting sit on the line the warps' stall samples fall on most, in the
/// user's own file, and name the lines with their reasons (fixtures/h200-source: the middle
/// ground's source pages with stall sampling, from the same H200 report as its raw page).
#[test]
fn waiting_findings_name_the_lines_the_warps_wait_on() {
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-corpus/full_middle_ground.csv",
        "--source-page",
        "fixtures/h200-source/source_gemm_global_acc.csv",
        "--source-page",
        "fixtures/h200-source/source_walk_global.csv",
        "--source-root",
        "/work/main",
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let finding = |rule: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule)
            .unwrap_or_else(|| panic!("{rule}"))
            .clone()
    };
    let acc = finding("global-accumulator");
    assert!(
        acc["source"]["file"]
            .as_str()
            .unwrap()
            .ends_with("samples/corpus/middle_ground.cu")
    );
    assert_eq!(acc["source"]["line"], 38, "the c[...] += loop");
    let notes = acc["notes"].to_string();
    assert!(
        notes.contains("where the warps wait: middle_ground.cu:38 (100% of the stall samples, mostly long scoreboard"),
        "{notes}"
    );
    // The walk waits in an intrinsic inlined from a CUDA header: the note names it first,
    // and the finding sits on the user's load.
    let walk = finding("latency-bound");
    assert_eq!(walk["source"]["line"], 59, "int v = nodes[k * 32 + lane]");
    let notes = walk["notes"].to_string();
    assert!(
        notes.contains("where the warps wait: sm_30_intrinsics.hpp:373 (89% of the stall samples")
            && notes.contains("middle_ground.cu:59 (7% of the stall samples"),
        "{notes}"
    );
}

/// samples/corpus/source_lines.cu on the H200 (`ncu --set full --import-source yes`, its
/// raw page and each kernel's source page, lab/runs/2026-12-02-lines-and-pairs.txt): each
/// finding whose cause sits on a line names the line its header expected before the
/// capture, and the conflicted tile's declaration gets its padding as an edit.
#[test]
fn each_line_cause_names_its_line_and_the_tile_gets_its_padding() {
    let mut args = vec![
        "check",
        "fixtures/h200-corpus/full_source_lines.csv",
        "--format",
        "json",
        "--exit-zero",
    ];
    let pages: Vec<String> = [
        "transpose_conflicted",
        "reduce_strided_index",
        "local_dynamic_index",
        "divergent_by_lane",
    ]
    .iter()
    .map(|k| format!("fixtures/h200-source/source_{k}.csv"))
    .collect();
    for p in &pages {
        args.extend(["--source-page", p]);
    }
    let out = common::gpulint(&args);
    assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let finding = |kernel: &str, rule: &str| {
        findings
            .iter()
            .find(|f| f["kernel"].as_str().unwrap().starts_with(kernel) && f["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule} on {kernel}: {findings:#?}"))
    };
    let line_of = |f: &Value| {
        (
            f["source"]["file"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string(),
            f["source"]["line"].as_u64().unwrap(),
        )
    };
    let at = |line: u64| ("source_lines.cu".to_string(), line);
    let conflicted = finding("transpose_conflicted", "bank-conflicts");
    assert_eq!(line_of(conflicted), at(38));
    let edit = &conflicted["suggested_edit"];
    assert_eq!(edit["line"], 32);
    assert_eq!(edit["before"], "__shared__ float tile[TILE][TILE];");
    assert_eq!(edit["after"], "__shared__ float tile[TILE][TILE + 1];");
    let strided = finding("reduce_strided_index", "bank-conflicts");
    assert_eq!(line_of(strided), at(48), "sdata[index] += sdata[index + s]");
    assert!(
        strided.get("suggested_edit").is_none(),
        "a 1D array has no padding"
    );
    assert_eq!(
        line_of(finding("local_dynamic_index", "local-memory")),
        at(60)
    );
    assert_eq!(
        line_of(finding("divergent_by_lane", "divergent-warps")),
        at(71)
    );
    // The coalesced transpose has no coalescing finding.
    assert!(!findings.iter().any(|f| {
        f["kernel"]
            .as_str()
            .unwrap()
            .starts_with("transpose_conflicted")
            && f["rule"].as_str().unwrap().starts_with("uncoalesced")
    }));
}

/// The padding is a SARIF fix on the declaration's text (its columns read from the file on
/// disk) and a diff in Markdown, both relative to the source root.
#[test]
fn the_padding_is_a_sarif_fix_and_a_markdown_diff() {
    let run = |format: &str| {
        with_source_root(
            "fixtures/h200-corpus/full_source_lines.csv",
            "fixtures/h200-source/source_transpose_conflicted.csv",
            "bank-conflicts",
            format,
        )
    };
    let doc: Value = serde_json::from_str(&run("sarif")).unwrap();
    let result = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r.get("fixes").is_some())
        .expect("a result with a fix");
    let change = &result["fixes"][0]["artifactChanges"][0];
    assert_eq!(
        change["artifactLocation"]["uri"],
        "samples/corpus/source_lines.cu"
    );
    let replacement = &change["replacements"][0];
    // `  __shared__ float tile[TILE][TILE];` in samples/corpus/source_lines.cu.
    assert_eq!(replacement["deletedRegion"]["startLine"], 32);
    assert_eq!(replacement["deletedRegion"]["startColumn"], 3);
    assert_eq!(replacement["deletedRegion"]["endColumn"], 37);
    assert_eq!(
        replacement["insertedContent"]["text"],
        "__shared__ float tile[TILE][TILE + 1];"
    );
    let markdown = run("markdown");
    assert!(
        markdown.contains(
            "```diff\n- __shared__ float tile[TILE][TILE];\n+ __shared__ float tile[TILE][TILE + 1];\n```"
        ),
        "{markdown}"
    );
}

/// Float math promoted to double sits on the line whose SASS converts between float and
/// double, and its double literals with the `f` suffix are the suggested edit: a SARIF fix
/// on the line's text (its columns read from the file on disk). Both of double-promotion's
/// kernels on the H200: the rule's own (fp64_promotion.cu) and a held-out one.
#[test]
fn double_promotion_names_its_line_and_suffixes_its_literals() {
    let sarif = |profile: &str, page: &str| -> Value {
        serde_json::from_str(&with_source_root(
            profile,
            page,
            "double-promotion",
            "sarif",
        ))
        .unwrap()
    };
    for (profile, page, file, line, column, text) in [
        (
            "fixtures/h200-corpus/min_fp64_promotion.csv",
            "fixtures/h200-source/source_poly_double_literals.csv",
            "samples/corpus/fp64_promotion.cu",
            34,
            3,
            "for (int k = 0; k < STEPS; ++k) y = y * 1.0001f + 0.5f;",
        ),
        (
            "fixtures/h200-corpus/run_fp64_heldout.csv",
            "fixtures/h200-source/source_mixed_double.csv",
            "samples/corpus/fp64_heldout.cu",
            33,
            5,
            "y = y * 0.999f;",
        ),
    ] {
        let doc = sarif(profile, page);
        let results = doc["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{profile}: {results:?}");
        let location = &results[0]["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], file, "{profile}");
        assert_eq!(location["region"]["startLine"], line, "{profile}");
        let change = &results[0]["fixes"][0]["artifactChanges"][0];
        let replacement = &change["replacements"][0];
        assert_eq!(replacement["deletedRegion"]["startLine"], line, "{profile}");
        assert_eq!(
            replacement["deletedRegion"]["startColumn"], column,
            "{profile}"
        );
        assert_eq!(replacement["insertedContent"]["text"], text, "{profile}");
    }
}

/// Global atomics inlined from CUDA's headers: the source page puts them on the header's
/// line (`return __uAtomicAdd(address, val);`), so a contended-atomics finding sits on the
/// kernel's own `atomicAdd` call, and says which header line the page counted.
#[test]
fn contended_atomics_sit_on_the_kernels_own_atomic_call() {
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-corpus/min_atomics.csv",
        "--source-page",
        "fixtures/h200-source/source_atomics.csv",
        "--select",
        "contended-atomics",
        "--exit-zero",
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{findings:?}");
    for (kernel, line, call, header) in [
        (
            "hist_global",
            35,
            "atomicAdd(&bins[in[i] % BINS], 1u);",
            "device_atomic_functions.hpp:112",
        ),
        (
            "sum_atomic",
            49,
            "atomicAdd(sum, in[i]);",
            "sm_20_atomic_functions.hpp:84",
        ),
    ] {
        let f = findings
            .iter()
            .find(|f| f["kernel"].as_str().unwrap().starts_with(kernel))
            .unwrap();
        assert_eq!(f["source"]["line"], line, "{f}");
        assert!(
            f["source"]["file"]
                .as_str()
                .unwrap()
                .ends_with("samples/corpus/atomics.cu"),
            "{f}"
        );
        let notes = f["notes"].to_string();
        assert!(notes.contains(call) && notes.contains(header), "{notes}");
    }
}

/// samples/corpus/split_structs.cu on the H200 (ncu's SourceCounters with gpulint's
/// metrics, its raw and source pages from one report, lab/runs/2026-12-05-one-run.txt):
/// each split struct's copy sits on its load line, and its declaration, found by the
/// kernel's template argument, is the suggested edit with the alignment of one wide load;
/// a SARIF fix on the declaration's text (its columns read from the file on disk) and on
/// the HTML page. The aligned types get no finding, so no edit.
#[test]
fn a_split_struct_is_declared_aligned_as_the_suggested_edit() {
    let run = |format: &str| {
        with_source_root(
            "fixtures/h200-split-structs/source_run_raw.csv",
            "fixtures/h200-split-structs/source_run_pages.csv",
            "split-load",
            format,
        )
    };
    let report: Value = serde_json::from_str(&run("json")).unwrap();
    let edits: Vec<(String, u64, String, String)> = (report["findings"].as_array().unwrap())
        .iter()
        .map(|f| {
            let e = &f["suggested_edit"];
            assert_eq!(f["source"]["line"], 48, "out[i] = in[i]: {f:#?}");
            (
                f["kernel"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
                e["before"].as_str().unwrap().to_string(),
                e["after"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("Rgb8", 34, "struct Rgb8 { uint8_t r, g, b; };", 4),
        ("Rgba8", 36, "struct Rgba8 { uint8_t r, g, b, a; };", 4),
        ("Half2", 38, "struct Half2 { short a, b; };", 4),
        ("Pair", 40, "struct Pair { float x, y; };", 8),
        ("Vec3", 42, "struct Vec3 { float x, y, z; };", 16),
    ];
    assert_eq!(edits.len(), expected.len(), "{edits:#?}");
    for (kernel, line, before, bytes) in expected {
        let edit = (edits.iter())
            .find(|e| e.0.contains(&format!("<{kernel}>")))
            .unwrap_or_else(|| panic!("no edit for {kernel}: {edits:#?}"));
        let after = before.replacen("struct ", &format!("struct __align__({bytes}) "), 1);
        assert_eq!(
            (edit.1, edit.2.as_str(), edit.3.as_str()),
            (line, before, after.as_str())
        );
    }
    let doc: Value = serde_json::from_str(&run("sarif")).unwrap();
    let fixes: Vec<&Value> = (doc["runs"][0]["results"].as_array().unwrap())
        .iter()
        .filter_map(|r| r.get("fixes"))
        .collect();
    assert_eq!(fixes.len(), 5);
    let change = &fixes[0][0]["artifactChanges"][0];
    assert_eq!(
        change["artifactLocation"]["uri"],
        "samples/corpus/split_structs.cu"
    );
    assert_eq!(change["replacements"][0]["deletedRegion"]["startColumn"], 1);
    // The HTML page shows the edit too.
    assert!(run("html").contains("struct __align__(16) Vec3 { float x, y, z; };"));
}
