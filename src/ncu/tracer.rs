//! gpulint's launch tracer (launch_tracer.cpp): a CUPTI library that the CUDA driver loads
//! into the program through `CUDA_INJECTION64_PATH`, which writes every kernel launch to a
//! trace (see [`crate::ingest::trace`]). On the H200 a traced run took the time of a bare
//! run, where ncu's duration-only pass took 1.6-12.9 s more
//! (docs/runs/2026-12-01-launch-trace.txt). It is built once per machine with any C++
//! compiler, into gpulint's cache folder (a build that failed is not retried until its log
//! there is deleted), and loads the CUPTI library gpulint finds.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SOURCE: &str = include_str!("launch_tracer.cpp");

/// Names a built tracer library to use as is, or `off` to never trace.
pub const TRACER_ENV: &str = "GPULINT_LAUNCH_TRACER";

/// Names the CUPTI library the tracer loads, where gpulint would not find it.
pub const CUPTI_ENV: &str = "GPULINT_CUPTI";

/// What a traced run needs: the tracer library and the CUPTI library it loads.
pub struct Tracer {
    pub library: PathBuf,
    pub cupti: PathBuf,
}

/// The tracer: `$GPULINT_LAUNCH_TRACER`, else the one built from this gpulint's source,
/// building it the first time; and CUPTI (see [`find_cupti`]). `Err` says why there is none.
pub fn tracer(verbose: bool) -> Result<Tracer, String> {
    let chosen = std::env::var_os(TRACER_ENV).filter(|v| !v.is_empty());
    if chosen.as_deref() == Some(std::ffi::OsStr::new("off")) {
        return Err(format!("{TRACER_ENV}=off"));
    }
    // Found first: where there is no CUPTI, nothing is built.
    let cupti = find_cupti()?;
    let library = match chosen {
        Some(v) => {
            let p = PathBuf::from(v);
            if !p.is_file() {
                return Err(format!("{TRACER_ENV}={}: no such file", p.display()));
            }
            p
        }
        None => built_library(verbose)?,
    };
    Ok(Tracer { library, cupti })
}

fn built_library(verbose: bool) -> Result<PathBuf, String> {
    let compiler = ["c++", "g++", "clang++"]
        .iter()
        .find_map(|c| which::which(c).ok())
        .ok_or("no C++ compiler (c++, g++ or clang++) on PATH to build it")?;
    let cache = cache_dir().ok_or("no cache folder: neither XDG_CACHE_HOME nor HOME is set")?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (SOURCE, &compiler).hash(&mut hasher);
    let built = cache.join(format!("launch_tracer-{:016x}.so", hasher.finish()));
    if built.is_file() {
        return Ok(built);
    }
    // Each run would pay for the same failed build again.
    let failed = built.with_extension("failed.txt");
    if let Ok(why) = std::fs::read_to_string(&failed) {
        return Err(format!(
            "{} (an earlier build; delete {} to try again)",
            why.trim(),
            failed.display()
        ));
    }
    build(&compiler, &cache, &built, verbose).inspect_err(|why| {
        let _ = std::fs::write(&failed, why);
    })?;
    Ok(built)
}

/// CUPTI's library: `$GPULINT_CUPTI`, else the first found in `$CUDA_HOME`, `$CUDA_PATH`,
/// the toolkit of the `nvcc` on PATH and /usr/local/cuda, in each of the folders CUDA
/// versions have kept it in (`libcupti.so`, else its newest `libcupti.so.N`); else the
/// newest of those Nsight Compute carries (the ncu on PATH, then /opt/nvidia/nsight-compute).
/// Of those, CUPTI 11.8, 12.9 and 13.0 traced under a CUDA 13 driver on the H200; older ones
/// recorded nothing or crashed the program (docs/runs/2026-12-01-cupti-check.txt), which
/// leaves the run to the sample.
fn find_cupti() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(CUPTI_ENV).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{CUPTI_ENV}={}: no such file", p.display()))
        };
    }
    let mut toolkits: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .collect();
    if let Some(toolkit) = which::which("nvcc")
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .and_then(|p| Some(p.parent()?.parent()?.to_path_buf()))
    {
        toolkits.push(toolkit);
    }
    toolkits.push(PathBuf::from("/usr/local/cuda"));
    let nsight: Vec<PathBuf> = which::which("ncu")
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .into_iter()
        .chain(super::locate::newest_nsight_compute(Path::new(
            "/opt/nvidia/nsight-compute",
        )))
        .filter_map(|ncu| Some(ncu.parent()?.join(BUNDLED_CUPTI)))
        .collect();
    let in_toolkit = |root: &PathBuf| {
        let targets = std::fs::read_dir(root.join("targets"))
            .into_iter()
            .flatten()
            .filter_map(|t| Some(t.ok()?.path().join("lib")));
        ["extras/CUPTI/lib64", "lib64", "lib"]
            .iter()
            .map(|d| root.join(d))
            .chain(targets)
            .collect::<Vec<_>>()
    };
    let shown = |dirs: &[PathBuf]| {
        let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        if dirs.is_empty() {
            "(none)".to_string()
        } else {
            dirs.join(", ")
        }
    };
    toolkits
        .iter()
        .flat_map(in_toolkit)
        .chain(nsight.iter().cloned())
        .find_map(|d| cupti_in(&d))
        .ok_or_else(|| {
            format!(
                "CUPTI (libcupti.so) not found in the CUDA toolkits {} or beside ncu in {}; \
                 set CUDA_HOME to the CUDA toolkit, or {CUPTI_ENV} to the library",
                shown(&toolkits),
                shown(&nsight)
            )
        })
}

/// Where Nsight Compute keeps the CUPTI libraries it carries, beside its `ncu`.
const BUNDLED_CUPTI: &str = "host/target-linux-x64";

/// `dir/libcupti.so`, else the newest `dir/libcupti.so.N...` (by version, part by part).
fn cupti_in(dir: &Path) -> Option<PathBuf> {
    let plain = dir.join("libcupti.so");
    if plain.is_file() {
        return Some(plain);
    }
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?;
            let version = super::locate::version_parts(name.strip_prefix("libcupti.so.")?);
            path.is_file().then_some((version, path))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, path)| path)
}

fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(std::env::var_os("HOME")?).join(".cache")))?;
    Some(base.join("gpulint"))
}

/// Compiles the tracer next to where it goes, then renames it there, so that two gpulint
/// runs building at once never load a half-written library. It needs no CUDA header.
fn build(compiler: &Path, cache: &Path, built: &Path, verbose: bool) -> Result<(), String> {
    std::fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let source = built.with_extension("cpp");
    std::fs::write(&source, SOURCE).map_err(|e| format!("{}: {e}", source.display()))?;
    let partial = built.with_extension(format!("so.{}", std::process::id()));
    let mut command = Command::new(compiler);
    command
        .args(["-shared", "-fPIC", "-O2", "-std=c++17"])
        .arg(&source)
        .args(["-ldl", "-o"])
        .arg(&partial);
    if verbose {
        eprintln!("gpulint: building the launch tracer: {command:?}");
    }
    let out = command
        .output()
        .map_err(|e| format!("{}: {e}", compiler.display()))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&partial);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = stderr.lines().rev().take(3).collect();
        return Err(format!(
            "building the launch tracer failed ({}): {}",
            out.status,
            last.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    std::fs::rename(&partial, built).map_err(|e| format!("{}: {e}", built.display()))
}

/// Runs the program once under the tracer, its output discarded (the profiled run shows
/// it), and returns the trace's text. `Err` says why there is none: a program that made
/// no CUDA call, or one killed before it could write it.
pub fn trace(tracer: &Tracer, program: &[String], verbose: bool) -> Result<String, String> {
    let out = tempfile::Builder::new()
        .prefix("gpulint-trace-")
        .suffix(".csv")
        .tempfile()
        .map_err(|e| format!("a temporary file for the trace: {e}"))?;
    let mut command = Command::new(&program[0]);
    command
        .args(&program[1..])
        .env("CUDA_INJECTION64_PATH", &tracer.library)
        .env(CUPTI_ENV, &tracer.cupti)
        .env("GPULINT_TRACE_OUT", out.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if verbose {
        eprintln!(
            "gpulint: counting every launch: CUDA_INJECTION64_PATH={} {CUPTI_ENV}={} {}",
            tracer.library.display(),
            tracer.cupti.display(),
            program.join(" ")
        );
    }
    let interrupted = super::interrupted();
    let mut child = command
        .spawn()
        .map_err(|e| format!("{}: {e}", program[0]))?;
    let status = super::wait_or_stop(&mut child, interrupted).map_err(|e| e.message)?;
    if interrupted.load(std::sync::atomic::Ordering::SeqCst) {
        return Err("interrupted".into());
    }
    let text = std::fs::read_to_string(out.path()).unwrap_or_default();
    if text.is_empty() {
        return Err(format!(
            "the traced run ({status}) wrote no trace: it made no CUDA call, or did not exit \
             normally"
        ));
    }
    Ok(text)
}

#[cfg(test)]
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
}
