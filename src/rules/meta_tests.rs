//! Every rule is documented, uniquely named, and proven on real captures: it fires on
//! the fixtures its file names under `tests.fires` and stays quiet on `tests.clean`.

use std::collections::HashSet;

use crate::rules;

#[test]
fn codes_and_slugs_are_unique_and_docs_complete() {
    let rules = rules::load(None).unwrap();
    assert!(rules.len() >= 9);
    let mut codes = HashSet::new();
    let mut slugs = HashSet::new();
    for r in &rules {
        assert!(codes.insert(r.code.clone()), "duplicate code {}", r.code);
        assert!(slugs.insert(r.slug.clone()), "duplicate slug {}", r.slug);
        for (section, text) in [
            ("what", &r.doc.what),
            ("why", &r.doc.why),
            ("example", &r.doc.example),
            ("fix", &r.doc.fix),
        ] {
            assert!(
                text.trim().len() > 40,
                "{}: doc.{section} is too thin",
                r.slug
            );
        }
        if r.diff_only {
            continue; // reported by `gpulint diff`: tests/gate.rs covers it
        }
        assert!(
            !r.tests.fires.is_empty(),
            "{}: no fixture where it fires",
            r.slug
        );
        assert!(
            !r.tests.clean.is_empty(),
            "{}: no fixture where it stays quiet",
            r.slug
        );
    }
}

#[test]
fn issue_slugs_are_all_present() {
    let rules = rules::load(None).unwrap();
    for slug in [
        "uncoalesced-load",
        "uncoalesced-store",
        "misaligned-access",
        "register-limited-occupancy",
        "shared-memory-limited-occupancy",
        "block-size",
        "small-grid",
        "local-memory",
        "bank-conflicts",
    ] {
        assert!(rules::find(&rules, slug).is_some(), "missing {slug}");
    }
}

#[test]
fn every_rule_fires_and_stays_quiet_where_its_file_says() {
    // Paths in the rule files are relative to them: rules/ is beside fixtures/.
    let cases = rules::selftest::run(&rules::load(None).unwrap());
    assert!(cases.len() > 40, "{}", cases.len());
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            c.failure
                .as_ref()
                .map(|f| format!("{} {}: {f}", c.rule, c.spec))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn malformed_rule_files_name_the_file_and_field() {
    let good = std::fs::read_to_string(
        env!("CARGO_MANIFEST_DIR").to_string() + "/rules/GL204-small-grid.toml",
    )
    .unwrap();
    let cases = [
        (
            good.replace("when = \"grid_blocks", "when = \"grid_blokcs"),
            "`grid_blokcs`",
        ),
        (
            good.replace("code = \"GL204\"", "code = \"X1\""),
            "field `code`",
        ),
        (
            good.replace(
                "when = \"grid_slot_fill_pct < min",
                "when = \"grid_slot_fill_pct < < min",
            ),
            "field `when`",
        ),
        (good.replace("[doc]", "[doc]\nwhatt = 1"), "unknown field"),
        (
            good.replace(
                "message = \"the grid provides {grid_warps:.0}",
                "message = \"the grid provides {grid_warps:.x}",
            ),
            "field `message`",
        ),
        (
            good.replace(
                "code = \"GL204\"",
                "code = \"GL204\"\ncontext_kernels = { pattern = 'gemm' }",
            ),
            "needs a `kernel_pattern`",
        ),
        (
            good.replace("code = \"GL204\"", "code = \"GL204\"\ncatch_all = true"),
            "set `defer_to_other_findings = true` with it",
        ),
    ];
    for (text, want) in cases {
        let err = rules::parse_rule("rules/bad.toml", &text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("rules/bad.toml"), "{err}");
        assert!(err.contains(want), "{err} should mention {want}");
    }
}
