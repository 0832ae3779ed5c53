//! Replays what the fuzzers found (fuzz/regressions/TARGET/*) and their seeds
//! (fuzz/corpus/TARGET/seed-*) through the same calls as the fuzz targets: each must be
//! handled or refused, never panic.

mod common;

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
    let rules = gpulint::rules::load(None).unwrap();
    let files = inputs("ingest");
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let data = std::fs::read(&f).unwrap();
        if let Ok(p) = gpulint::ingest::parse_bytes("fuzz.csv", &data) {
            let _ = gpulint::rules::engine::lint(std::slice::from_ref(&p), &rules);
            for l in &p.launches {
                let _ = gpulint::roofline::place(l, None);
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
        let _ = gpulint::rules::parse_rule("fuzz.toml", &text);
        let _ = gpulint::config::Config::parse("gpulint.toml", &text);
        let _ = gpulint::rules::expr::parse(&text);
    }
}

#[test]
fn baseline_inputs() {
    let files = inputs("baseline");
    assert!(!files.is_empty());
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        if let Ok(b) = gpulint::baseline::parse("fuzz.json", &text) {
            let d = gpulint::diff::diff(&b, &b, &gpulint::diff::default_gates(true), true);
            assert!(d.regressions().next().is_none(), "{}", f.display());
        }
    }
}
