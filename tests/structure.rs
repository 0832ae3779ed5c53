//! The modules of src/ form no import circle, and the data flows one way: ingest knows
//! nothing of rules or reports (scripts/module-graph.py reads the `crate::` paths).

use std::process::Command;

#[test]
fn modules_are_acyclic_and_ingest_does_not_depend_on_report() {
    let out = Command::new("python3")
        .arg("scripts/module-graph.py")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "a cycle:\n{text}");
    let ingest = text.lines().find(|l| l.starts_with("ingest -> ")).unwrap();
    for later in ["report", "rules", "fold", "origin", "app"] {
        assert!(!ingest.split(' ').any(|m| m == later), "{ingest}");
    }
}

#[test]
fn no_function_is_longer_than_80_lines() {
    let out = Command::new("python3")
        .args(["scripts/long-functions.py", "80"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
