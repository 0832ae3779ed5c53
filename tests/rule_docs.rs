//! The docs about rules are true: docs/rules.md's rule table is what `gpulint rules
//! --format markdown` prints, and the worked example of docs/rules.md loads, passes its
//! own cases under `gpulint test-rules`, and fires where it says.

mod common;

#[test]
fn rules_doc_table_is_generated() {
    let out = common::gpulint(&["rules", "--format", "markdown"]);
    let table = String::from_utf8(out.stdout).unwrap();
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    assert!(
        doc.contains(&table),
        "docs/rules.md's rule table differs from `gpulint rules --format markdown`:\n{table}"
    );
}

// A clone's layout, made with a symlink to fixtures/: Unix's.
#[cfg(unix)]
#[test]
fn the_worked_example_in_docs_rules_md_works() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    let start = doc.find("```toml\n").expect("a toml block") + "```toml\n".len();
    // The block ends at the first fence on a line of its own after [tests].
    let tests_at = doc[start..].find("[tests]").unwrap() + start;
    let end = doc[tests_at..].find("\n```\n").unwrap() + tests_at + 1;
    let rule = &doc[start..end];

    // A clone's layout: my-rules/ beside fixtures/.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"),
        dir.path().join("fixtures"),
    )
    .unwrap();
    let rules = dir.path().join("my-rules");
    std::fs::create_dir(&rules).unwrap();
    std::fs::write(rules.join("GL701-divergent-warps.toml"), rule).unwrap();
    let rules = rules.to_str().unwrap();

    let out = common::gpulint(&["test-rules", rules]);
    let text = common::transcript(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("2 passed, 0 failed"), "{text}");

    let out = common::gpulint(&["explain", "GL701", "--rules", rules]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("divergent-warps (GL701)"));
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-corpus/min_particlefilter.csv",
        "--rules",
        rules,
        "--select",
        "GL701",
        "--format",
        "concise",
    ]);
    let text = common::transcript(&out);
    assert!(
        text.contains("GL701] divergent-warps normalize_weights_kernel"),
        "{text}"
    );
    assert!(
        !text.contains("GL701] divergent-warps likelihood_kernel"),
        "{text}"
    );
}

// A clone's layout, made with a symlink to fixtures/: Unix's.
#[cfg(unix)]
#[test]
fn test_rules_reports_a_failing_case() {
    // A case that cannot hold: the stencil does not fire uncoalesced-load.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"),
        dir.path().join("fixtures"),
    )
    .unwrap();
    let rules = dir.path().join("r");
    std::fs::create_dir(&rules).unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rules/GL101-uncoalesced-load.toml"
    ))
    .unwrap();
    let start = text.find("[tests]").unwrap();
    let broken = format!(
        "{}[tests]\nfires = [\"../fixtures/h200-corpus/min_stencil2d.csv#0\"]\n",
        &text[..start]
    );
    std::fs::write(rules.join("GL101.toml"), broken).unwrap();
    let out = common::gpulint(&["test-rules", rules.to_str().unwrap()]);
    let text = common::transcript(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "FAIL  uncoalesced-load on ../fixtures/h200-corpus/min_stencil2d.csv#0: should fire"
        ),
        "{text}"
    );
    assert!(text.contains("0 passed, 1 failed"), "{text}");
}

/// docs/launch-tracer.md's table names the rules judged on every launch and those judged
/// on the sample as `gpulint rules` classes them.
#[test]
fn the_launch_tracer_doc_lists_the_rules_by_what_judges_them() {
    let out = common::gpulint(&["rules", "--format", "json"]);
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/launch-tracer.md"
    ))
    .unwrap();
    for (row_start, judged_on) in [
        ("| every launch the trace counted |", "every launch"),
        ("| the launches the tracer profiled", "profiled launches"),
    ] {
        let row = doc
            .lines()
            .find(|l| l.starts_with(row_start))
            .unwrap_or_else(|| panic!("no row {row_start}"));
        let mut named: Vec<&str> = row.split('`').skip(1).step_by(2).collect();
        named.retain(|n| !n.contains('/'));
        let mut expected: Vec<&str> = (rules.as_array().unwrap().iter())
            .filter(|r| r["judged_on"] == judged_on)
            .map(|r| r["slug"].as_str().unwrap())
            .collect();
        named.sort_unstable();
        expected.sort_unstable();
        assert_eq!(named, expected, "{row_start}");
    }
}
