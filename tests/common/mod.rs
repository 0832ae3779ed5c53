#![allow(dead_code)]

pub mod ncu_lists;

use std::path::PathBuf;
use std::process::{Command, Output};

use gpulint::{Finding, Launch, Profile, Severity};

#[cfg(unix)]
pub mod executable;

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

pub fn profile(rel: &str) -> Profile {
    gpulint::read_path(fixture(rel).to_str().unwrap()).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn lint(p: &Profile) -> Vec<Finding> {
    let rules = gpulint::load_rules(None).unwrap();
    gpulint::lint(std::slice::from_ref(p), &rules).findings
}

/// (launch, slug) of every finding at warning or above, merged launches expanded.
pub fn warnings(p: &Profile) -> Vec<(u64, String)> {
    let mut out: Vec<(u64, String)> = lint(p)
        .into_iter()
        .filter(|f| f.severity >= Severity::Warning)
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

/// The mangled names of `--kernel-id ::regex:^(M1|M2|...)$:N1|N2|...`, `None` for
/// `:::N1|N2|...` (every kernel).
pub fn kernel_id_names(ncu_args: &[String]) -> Option<Vec<String>> {
    let at = ncu_args.iter().position(|a| a == "--kernel-id")?;
    let id = ncu_args[at + 1].strip_prefix("::regex:^(")?;
    let names = &id[..id.find(")$:")?];
    Some(names.split('|').map(String::from).collect())
}

/// The demangled names, without spaces, that a launch trace gives these mangled names.
pub fn demangled_in_trace(
    trace: &std::path::Path,
    mangled: &[String],
) -> std::collections::HashSet<String> {
    let text = std::fs::read_to_string(trace).unwrap();
    let profile = gpulint::parse_bytes("trace", text.as_bytes()).unwrap();
    profile
        .launches
        .iter()
        .filter(|l| {
            l.mangled
                .as_deref()
                .is_some_and(|m| mangled.iter().any(|x| x == m))
        })
        .map(|l| l.name.replace(' ', ""))
        .collect()
}

/// The launch numbers of `--kernel-id :::N1|N2|...`.
pub fn kernel_id_numbers(ncu_args: &[String]) -> std::collections::BTreeSet<u64> {
    let at = ncu_args
        .iter()
        .position(|a| a == "--kernel-id")
        .expect("a --kernel-id filter");
    let id = &ncu_args[at + 1];
    let numbers = id.rsplit(':').next().unwrap();
    numbers.split('|').map(|n| n.parse().unwrap()).collect()
}

/// The capture's rows that `--kernel-id :::numbers` takes: each kernel's launches whose
/// number among its own (by name, from 1) is one of `numbers`, of the kernels named in
/// `kernels` (demangled, without spaces: ncu and the C++ runtime space them differently)
/// when given. Other lines stay.
pub fn cut_to_kernel_id(
    capture: &std::path::Path,
    numbers: &std::collections::BTreeSet<u64>,
    kernels: Option<&std::collections::HashSet<String>>,
    to: &std::path::Path,
) -> usize {
    let text = std::fs::read_to_string(capture).unwrap();
    let mut name_column = None;
    let mut seen: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut kept = String::new();
    let mut rows = 0;
    for line in text.lines() {
        let fields: Vec<String> = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes())
            .records()
            .next()
            .and_then(Result::ok)
            .map(|r| r.iter().map(String::from).collect())
            .unwrap_or_default();
        if fields.first().map(String::as_str) == Some("ID") {
            name_column = fields.iter().position(|f| f == "Kernel Name");
        }
        let is_launch = fields.first().is_some_and(|f| f.parse::<u64>().is_ok());
        if let (true, Some(column)) = (is_launch, name_column) {
            let nth = seen.entry(fields[column].clone()).or_default();
            *nth += 1;
            let named = kernels.is_none_or(|k| k.contains(&fields[column].replace(' ', "")));
            if !numbers.contains(nth) || !named {
                continue;
            }
            rows += 1;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    std::fs::write(to, kept).unwrap();
    rows
}

/// The JSON report on a run's stdout, after whatever the program printed itself.
pub fn json_report(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let start = stdout
        .find("{\n")
        .unwrap_or_else(|| panic!("no JSON report: {}", transcript(out)));
    serde_json::from_str(&stdout[start..]).unwrap_or_else(|e| panic!("{e}: {}", transcript(out)))
}

/// `gpulint check FILE --format json --exit-zero`: the report of an export (or of a saved
/// run, with its trace and record beside it).
pub fn check_json(file: &std::path::Path) -> serde_json::Value {
    let out = gpulint(&[
        "check",
        file.to_str().unwrap(),
        "--format",
        "json",
        "--exit-zero",
    ]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", transcript(&out)))
}

/// The (kernel, rule) pairs a JSON report warns of, by function name.
pub fn warnings_of(report: &serde_json::Value) -> std::collections::BTreeSet<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "info")
        .map(|f| {
            let kernel = f["kernel"].as_str().unwrap().split('(').next().unwrap();
            (kernel.to_string(), f["rule"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Each kernel's share of GPU time in a JSON report, by function name.
pub fn kernel_shares(report: &serde_json::Value) -> std::collections::BTreeMap<String, f64> {
    let mut shares = std::collections::BTreeMap::new();
    for k in report["kernels"].as_array().unwrap() {
        let name = k["name"].as_str().unwrap().split('(').next().unwrap();
        *shares.entry(name.to_string()).or_insert(0.0) +=
            k["share_of_gpu_time_pct"].as_f64().unwrap();
    }
    shares
}

/// The launches rule files name under `[tests]` (`../fixtures/FILE.csv#ID`, relative to
/// `rules/`), each profile read once.
#[derive(Default)]
pub struct RuleCases {
    profiles: std::collections::HashMap<String, Profile>,
}

impl RuleCases {
    /// The profile a case names and its launch.
    pub fn launch(&mut self, spec: &str) -> (&Profile, &Launch) {
        let (file, id) = spec.split_once('#').unwrap();
        let path = format!("rules/{file}");
        let p = self
            .profiles
            .entry(path.clone())
            .or_insert_with(|| gpulint::read_path(&path).unwrap());
        let id: u64 = id.parse().unwrap();
        let launch = p.launches.iter().find(|l| l.id == id).unwrap();
        (p, launch)
    }
}

/// One `#[test]` per lint rule, named by its slug (`small_grid` for `small-grid`), each
/// calling `$check(slug)`: `cargo test small_grid` runs that rule's cases in every suite
/// that uses it, and `every_rule_has_a_test` (in the same suite) fails on a rule not listed.
#[macro_export]
macro_rules! test_per_rule {
    ($check:path) => {
        $crate::test_per_rule!(@each $check,
            uncoalesced_load "uncoalesced-load", uncoalesced_store "uncoalesced-store",
            misaligned_access "misaligned-access", split_load "split-load",
            register_limited_occupancy "register-limited-occupancy",
            shared_memory_limited_occupancy "shared-memory-limited-occupancy",
            register_and_shared_memory_limited_occupancy "register-and-shared-memory-limited-occupancy",
            block_size "block-size", small_grid "small-grid", failed_launch "failed-launch",
            partial_wave "partial-wave", local_memory "local-memory",
            bank_conflicts "bank-conflicts", latency_bound "latency-bound",
            load_store_bound "load-store-bound", issue_bound "issue-bound",
            pipe_bound "pipe-bound", divergent_warps "divergent-warps",
            global_accumulator "global-accumulator", serial_loads "serial-loads",
            contended_atomics "contended-atomics",
            fp32_gemm_on_cuda_cores "fp32-gemm-on-cuda-cores",
            manual_attention "manual-attention", launch_bound "launch-bound",
            launch_burst "launch-burst", double_promotion "double-promotion"
        );
    };
    (@each $check:path, $($name:ident $slug:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                $check($slug);
            }
        )*

        #[test]
        fn every_rule_has_a_test() {
            let listed = [$($slug),*];
            for rule in gpulint::load_rules(None).unwrap().iter().filter(|r| !r.is_diff_only()) {
                assert!(
                    listed.contains(&rule.slug.as_str()),
                    "{} has no test of its own: add it to test_per_rule! (tests/common/mod.rs)",
                    rule.slug
                );
            }
        }
    };
}
