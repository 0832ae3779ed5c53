#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use gpulint::ingest::{self, Profile};
use gpulint::rules::{self, engine::Finding};

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

pub fn profile(rel: &str) -> Profile {
    ingest::read_path(fixture(rel).to_str().unwrap()).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn lint(p: &Profile) -> Vec<Finding> {
    let rules = rules::load(None).unwrap();
    rules::engine::lint(std::slice::from_ref(p), &rules).findings
}

/// (launch, slug) of every finding at warning or above, merged launches expanded.
pub fn warnings(p: &Profile) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = lint(p)
        .into_iter()
        .filter(|f| f.severity >= rules::Severity::Warning)
        .flat_map(|f| {
            let ids = if f.launches.is_empty() {
                vec![f.launch]
            } else {
                f.launches.clone()
            };
            ids.into_iter().map(move |id| (id, f.rule.clone()))
        })
        .collect();
    out.sort();
    out
}

/// Runs the gpulint binary from the crate root with colour off.
pub fn gpulint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("NCU")
        .env("PATH", path_without_ncu())
        .output()
        .expect("run gpulint")
}

/// PATH without the folders that hold an `ncu`: the tests run as on a machine without
/// Nsight Compute (CI's), whatever this one has installed.
pub fn path_without_ncu() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::env::split_paths(&path).filter(|dir| !dir.join("ncu").exists()))
        .expect("PATH's own folders join")
}

/// stdout, stderr and exit code together, as one snapshot.
pub fn transcript(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// 8448 as the reports print it: 8,448.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A scratch folder for one test, under the system's temporary folder, removed with
/// everything in it when the value is dropped: `cargo test` leaves nothing behind. It
/// reads as a path (`dir.join(..)`, `&dir`), so keep it in a variable for as long as the
/// test uses what is in it.
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

pub fn scratch_dir(name: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("gpulint-test-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// A scratch file holding `bytes`, in a scratch folder of its own that goes with it.
pub struct ScratchFile {
    _dir: Scratch,
    path: PathBuf,
}

impl std::ops::Deref for ScratchFile {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.path
    }
}

impl AsRef<std::path::Path> for ScratchFile {
    fn as_ref(&self) -> &std::path::Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for ScratchFile {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

pub fn scratch_file(name: &str, bytes: &[u8]) -> ScratchFile {
    let dir = scratch_dir("file");
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    ScratchFile { _dir: dir, path }
}
