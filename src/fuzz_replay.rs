//! Replays what the fuzzers found (fuzz/regressions/TARGET/*) and their seeds
//! (fuzz/corpus/TARGET/seed-*) through the same calls as the fuzz targets: each must be
//! handled or refused, never panic. A unit test: the targets call the parsers the crate
//! keeps private (`crate::fuzzing` under cargo-fuzz).

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut out = Vec::new();
    for dir in [
        root.join("regressions").join(target),
        root.join("corpus").join(target),
    ] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if dir.ends_with(target)
                    && (name.starts_with("seed-") || dir.starts_with(root.join("regressions")))
                {
                    out.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn ingest_inputs() {
    let rules = crate::load_rules(None).unwrap();
    let files = inputs("ingest");
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let data = std::fs::read(&f).unwrap();
        if let Ok(p) = crate::parse_bytes("fuzz.csv", &data) {
            let _ = crate::lint(std::slice::from_ref(&p), &rules);
            for l in &p.launches {
                let _ = crate::place(l, None);
            }
        }
    }
}

#[test]
fn rule_file_inputs() {
    let files = inputs("rule_file");
    assert!(files.len() >= 10, "{files:?}");
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        let _ = crate::rules::parse_rule("fuzz.toml", &text);
        let _ = crate::config::Config::parse("gpulint.toml", &text);
        let _ = crate::rules::expr::parse(&text);
    }
}

#[test]
fn baseline_inputs() {
    let files = inputs("baseline");
    assert!(!files.is_empty());
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        if let Ok(b) = crate::baseline::parse("fuzz.json", &text) {
            let d = crate::diff::diff(&b, &b, &crate::diff::default_gates(true), true);
            assert!(d.regressions().next().is_none(), "{}", f.display());
        }
    }
}
