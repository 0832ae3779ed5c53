//! Which CUPTI library the launch tracer loads. The one bundled with the ncu that will
//! profile comes first: it is the one NVIDIA pairs with that ncu. Then the CUDA toolkits'.
//! Each is checked against the driver before it is injected: on the H200 (CUDA 13.0
//! driver), CUPTI 10.2-11.1 crashed the program and 11.2-11.7 recorded nothing, while
//! 11.8, 12.9 and 13.0 traced every launch (lab/runs/2026-12-01-cupti-check.txt). A CUPTI
//! newer than the driver's CUDA is not supported by it.

use std::path::{Path, PathBuf};

use super::CUPTI_ENV;

/// The oldest CUPTI that traced under a current driver.
pub const OLDEST_TRACING: Version = Version(11, 8);

/// The oldest CUPTI whose PC-sampling records the tracer's declarations match: CUDA 13.0's,
/// 64 bytes each (samples/corpus/sass_layout_check.cpp on the H200). CUPTI fills the array
/// by its own record's size, and an older one's may be 56 bytes (it had no correlation id):
/// the tracer samples no stalls under it.
pub const PC_SAMPLING_SINCE: Version = Version(13, 0);

/// A CUDA version, major and minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u64, pub u64);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl Version {
    /// "12.9", "13.0.48" or "12" as a version; `None` when it does not start with a number.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().split('.').map(|p| p.parse::<u64>().ok());
        let major = parts.next()??;
        Some(Version(major, parts.next().flatten().unwrap_or(0)))
    }
}

/// The CUPTI chosen, its version when known, and where it was found.
#[derive(Debug, Clone)]
pub struct Cupti {
    pub path: PathBuf,
    pub version: Option<Version>,
    pub found: String,
}

/// A CUPTI that was found and the version it claims.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    pub version: Option<Version>,
    pub found: String,
}

/// The CUDA version the installed driver supports, as `nvidia-smi` prints it
/// ("CUDA Version: 13.0"); `None` without nvidia-smi.
pub fn driver_cuda_version() -> Option<Version> {
    let text = crate::profile::visible_gpus::nvidia_smi(&[])?;
    let (_, after) = text.split_once("CUDA Version:")?;
    Version::parse(after.split_whitespace().next()?)
}

/// `$GPULINT_CUPTI` as given, else the newest candidate (see [`candidates`]) that
/// [`refusal`] lets through. `Err` lists every CUPTI found and why it was passed over.
pub fn choose(ncu: Option<&Path>, driver: Option<Version>) -> Result<Cupti, String> {
    if let Some(p) = std::env::var_os(CUPTI_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(p);
        return if path.is_file() {
            Ok(Cupti {
                version: version_in_name(&path),
                path,
                found: CUPTI_ENV.to_string(),
            })
        } else {
            Err(format!("{CUPTI_ENV}={}: no such file", path.display()))
        };
    }
    let found = candidates(ncu);
    pick(&found, driver)
}

/// The first of `found` (in order of preference) that the driver can run, or why none.
pub fn pick(found: &[Candidate], driver: Option<Version>) -> Result<Cupti, String> {
    let mut passed_over = Vec::new();
    for c in found {
        match refusal(c.version, driver) {
            None => {
                return Ok(Cupti {
                    path: c.path.clone(),
                    version: c.version,
                    found: c.found.clone(),
                });
            }
            Some(why) => passed_over.push(format!("{} ({why})", c.path.display())),
        }
    }
    if passed_over.is_empty() {
        return Err(format!(
            "CUPTI (libcupti.so) not found beside ncu or in a CUDA toolkit ($CUDA_HOME, \
             $CUDA_PATH, nvcc's, /usr/local/cuda); set {CUPTI_ENV} to the library"
        ));
    }
    Err(format!(
        "no CUPTI fit to inject: {}; set {CUPTI_ENV} to one that matches the driver",
        passed_over.join("; ")
    ))
}

/// Why a CUPTI of `version` must not be injected under a driver of `driver`, or `None`.
pub fn refusal(version: Option<Version>, driver: Option<Version>) -> Option<String> {
    let Some(version) = version else {
        return Some("its version is unknown".into());
    };
    if version < OLDEST_TRACING {
        return Some(format!(
            "CUPTI {version} is older than {OLDEST_TRACING}: under a current driver it records \
             nothing or crashes the program"
        ));
    }
    match driver {
        Some(d) if version > d => Some(format!(
            "CUPTI {version} is newer than the driver's CUDA {d}"
        )),
        _ => None,
    }
}

/// Every CUPTI found, in order of preference: beside the ncu that will profile (newest
/// version first), then in the CUDA toolkits of `$CUDA_HOME`, `$CUDA_PATH`, the `nvcc` on
/// PATH and /usr/local/cuda.
pub fn candidates(ncu: Option<&Path>) -> Vec<Candidate> {
    let mut found = Vec::new();
    for dir in ncu.map(nsight_compute_folders).unwrap_or_default() {
        for folder in bundled_folders(&dir) {
            let mut here = versioned_in(&folder);
            here.sort_by(|a, b| b.0.cmp(&a.0));
            found.extend(here.into_iter().map(|(_, path)| Candidate {
                version: version_in_name(&path),
                path,
                found: format!("beside ncu, in {}", dir.display()),
            }));
        }
    }
    for root in toolkits() {
        let version = toolkit_version(&root);
        for dir in toolkit_folders(&root) {
            if let Some(path) = cupti_in(&dir) {
                found.push(Candidate {
                    path,
                    version,
                    found: format!("CUDA toolkit {}", root.display()),
                });
                break;
            }
        }
    }
    found
}

/// The Nsight Compute folders `ncu` may run from: its own (links followed), and where the
/// `ncu` in a toolkit's `bin/` is a launcher, the toolkit's `nsight-compute-*` folders,
/// newest first, then the newest under /opt/nvidia/nsight-compute.
pub(crate) fn nsight_compute_folders(ncu: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    let Ok(real) = ncu.canonicalize() else {
        return folders;
    };
    let Some(dir) = real.parent() else {
        return folders;
    };
    folders.push(dir.to_path_buf());
    if let Some(root) = dir.parent() {
        let mut bundled = entries_named(root, |n| n.starts_with("nsight-compute"));
        bundled.sort_by_key(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let version = name
                .as_deref()
                .and_then(|n| n.rsplit('-').next())
                .unwrap_or("");
            std::cmp::Reverse(super::super::locate::version_parts(version))
        });
        folders.extend(bundled);
    }
    // The toolkit's bin/ncu may be a script that starts the newest Nsight Compute installed
    // on its own (on the H200 machine, /opt/nvidia/nsight-compute/2025.3.1).
    folders.extend(
        super::super::locate::newest_nsight_compute(Path::new("/opt/nvidia/nsight-compute"))
            .and_then(|n| Some(n.parent()?.to_path_buf())),
    );
    folders
}

/// The entries of `dir` whose name `keep` accepts; none when it cannot be read.
fn entries_named(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
        .collect()
}

/// The folders Nsight Compute keeps its CUPTI libraries in for this machine's
/// architecture: `host/target-linux-x64` on x86-64, the `-a64` one on Arm.
fn bundled_folders(ncu_dir: &Path) -> Vec<PathBuf> {
    let tag = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "a64",
        other => other,
    };
    let mut folders = entries_named(&ncu_dir.join("host"), |n| {
        n.starts_with("target-linux") && n.ends_with(tag)
    });
    folders.sort();
    folders
}

fn toolkits() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| {
            std::env::var_os(v)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .collect();
    if let Some(toolkit) = which::which("nvcc")
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .and_then(|p| Some(p.parent()?.parent()?.to_path_buf()))
    {
        roots.push(toolkit);
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    // /usr/local/cuda is often a link to the toolkit nvcc comes from.
    let mut seen = std::collections::HashSet::new();
    roots.retain(|r| seen.insert(r.canonicalize().unwrap_or(r.clone())));
    roots
}

/// The folders CUDA versions have kept CUPTI in.
fn toolkit_folders(root: &Path) -> Vec<PathBuf> {
    let targets = entries_named(&root.join("targets"), |_| true)
        .into_iter()
        .map(|t| t.join("lib"));
    ["extras/CUPTI/lib64", "lib64", "lib"]
        .iter()
        .map(|d| root.join(d))
        .chain(targets)
        .collect()
}

/// The toolkit's CUDA version: `version.json` (CUDA 11.1 on), else `version.txt`, else
/// `CUDA_VERSION` in its `cuda.h` (container images may lack both files).
pub fn toolkit_version(root: &Path) -> Option<Version> {
    if let Ok(text) = std::fs::read_to_string(root.join("version.json")) {
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        return Version::parse(json.get("cuda")?.get("version")?.as_str()?);
    }
    if let Ok(text) = std::fs::read_to_string(root.join("version.txt")) {
        return Version::parse(text.split("Version").nth(1)?);
    }
    let targets = entries_named(&root.join("targets"), |_| true)
        .into_iter()
        .map(|t| t.join("include/cuda.h"));
    std::iter::once(root.join("include/cuda.h"))
        .chain(targets)
        .find_map(|h| version_in_header(&std::fs::read_to_string(h).ok()?))
}

/// `#define CUDA_VERSION 13000` is CUDA 13.0.
fn version_in_header(header: &str) -> Option<Version> {
    let line = header
        .lines()
        .find(|l| l.trim_start().starts_with("#define CUDA_VERSION "))?;
    let number: u64 = line.split_whitespace().nth(2)?.parse().ok()?;
    Some(Version(number / 1000, number % 1000 / 10))
}

/// CUPTI 12.9 beside ncu is `libcupti.so.12.9`.
fn version_in_name(path: &Path) -> Option<Version> {
    Version::parse(path.file_name()?.to_str()?.strip_prefix("libcupti.so.")?)
}

/// The `libcupti.so.N...` files of a folder, with their versions.
fn versioned_in(dir: &Path) -> Vec<(Vec<u64>, PathBuf)> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?;
            let version = super::super::locate::version_parts(name.strip_prefix("libcupti.so.")?);
            path.is_file().then_some((version, path))
        })
        .collect()
}

/// `dir/libcupti.so`, else the newest `dir/libcupti.so.N...` (by version, part by part).
pub fn cupti_in(dir: &Path) -> Option<PathBuf> {
    let plain = dir.join("libcupti.so");
    if plain.is_file() {
        return Some(plain);
    }
    versioned_in(dir)
        .into_iter()
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, path)| path)
}

// The toolkit layouts are built with symlinks.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Nsight Compute 2025.3.1 carries libcupti.so.10.2 to 13.0 (on the H200): the newest
    /// wins, by version and not by name (12.10 after 12.9); a plain libcupti.so before all.
    #[test]
    fn the_newest_cupti_in_a_folder_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        for v in ["10.2", "11.8", "12.9", "12.10", "9.1"] {
            std::fs::write(dir.path().join(format!("libcupti.so.{v}")), "").unwrap();
        }
        std::fs::write(dir.path().join("libcuda.so.13"), "").unwrap();
        let found = cupti_in(dir.path()).unwrap();
        assert_eq!(found.file_name().unwrap(), "libcupti.so.12.10");
        std::fs::write(dir.path().join("libcupti.so"), "").unwrap();
        assert_eq!(
            cupti_in(dir.path()).unwrap().file_name().unwrap(),
            "libcupti.so"
        );
        assert_eq!(cupti_in(&dir.path().join("none")), None);
    }

    /// An ncu folder laid out as Nsight Compute 2025.3.1's, and a stale CUDA 11.4 toolkit
    /// in CUDA_HOME: under a CUDA 12.4 driver the newest bundled CUPTI the driver supports
    /// is taken (12.9 and 13.0 are newer than it), never the toolkit's 11.4, which records
    /// nothing; with no usable one the error lists each and why.
    #[test]
    fn the_cupti_beside_ncu_that_the_driver_supports_is_taken() {
        let root = tempfile::tempdir().unwrap();
        let ncu_dir = root.path().join("nsight-compute/2025.3.1");
        let tag = if std::env::consts::ARCH == "aarch64" {
            "a64"
        } else {
            "x64"
        };
        let bundled = ncu_dir.join(format!("host/target-linux-{tag}"));
        std::fs::create_dir_all(&bundled).unwrap();
        std::fs::write(ncu_dir.join("ncu"), "").unwrap();
        for v in ["10.2", "11.4", "11.8", "12.4", "12.9", "13.0"] {
            std::fs::write(bundled.join(format!("libcupti.so.{v}")), "").unwrap();
        }
        let found = candidates(Some(&ncu_dir.join("ncu")));
        // A toolkit's bin/ncu is a launcher for its nsight-compute-* folder.
        let toolkit = root.path().join("cuda-13.0");
        std::fs::create_dir_all(toolkit.join("bin")).unwrap();
        std::fs::write(toolkit.join("bin/ncu"), "#!/bin/sh\n").unwrap();
        std::os::unix::fs::symlink(&ncu_dir, toolkit.join("nsight-compute-2025.3.1")).unwrap();
        let from_launcher = candidates(Some(&toolkit.join("bin/ncu")));
        assert_eq!(from_launcher.len(), found.len());
        assert_eq!(
            from_launcher[0].path.file_name().unwrap(),
            "libcupti.so.13.0"
        );
        let chosen = pick(&found, Some(Version(12, 4))).unwrap();
        assert_eq!(chosen.path.file_name().unwrap(), "libcupti.so.12.4");
        assert_eq!(chosen.version, Some(Version(12, 4)));
        let chosen = pick(&found, None).unwrap();
        assert_eq!(chosen.version, Some(Version(13, 0)));

        let toolkit = Candidate {
            path: "/usr/local/cuda-11.4/extras/CUPTI/lib64/libcupti.so".into(),
            version: Some(Version(11, 4)),
            found: "CUDA toolkit".into(),
        };
        let err = pick(&[toolkit], Some(Version(13, 0))).unwrap_err();
        assert!(
            err.contains("libcupti.so (CUPTI 11.4 is older than 11.8")
                && err.contains("set GPULINT_CUPTI"),
            "{err}"
        );
        let err = pick(&found[..1], Some(Version(12, 4))).unwrap_err();
        assert!(
            err.contains("CUPTI 13.0 is newer than the driver's CUDA 12.4"),
            "{err}"
        );
    }

    #[test]
    fn toolkit_versions_are_read_from_their_files() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(toolkit_version(root.path()), None);
        let include = root.path().join("targets/x86_64-linux/include");
        std::fs::create_dir_all(&include).unwrap();
        std::fs::write(
            include.join("cuda.h"),
            "#ifndef CUDA_H\n#define CUDA_VERSION 12040\n",
        )
        .unwrap();
        assert_eq!(toolkit_version(root.path()), Some(Version(12, 4)));
        std::fs::write(root.path().join("version.txt"), "CUDA Version 10.2.89\n").unwrap();
        assert_eq!(toolkit_version(root.path()), Some(Version(10, 2)));
        std::fs::write(
            root.path().join("version.json"),
            r#"{"cuda": {"name": "CUDA SDK", "version": "13.0.2"}}"#,
        )
        .unwrap();
        assert_eq!(toolkit_version(root.path()), Some(Version(13, 0)));
    }
}
