//! Finding the ncu binary: `--ncu`, `$NCU`, `PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`,
//! then the newest `/opt/nvidia/nsight-compute/*/ncu`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// ncu for a command that takes `--ncu` (`gpulint run`, `doctor`).
pub fn find_ncu(explicit: Option<&str>) -> Result<PathBuf> {
    find_ncu_pointed(explicit, "--ncu /path/to/ncu or NCU=/path/to/ncu")
}

/// ncu for a command without `--ncu` (`gpulint check REPORT.ncu-rep`): its error names
/// only `NCU=`, which that command reads.
pub fn find_ncu_from_env() -> Result<PathBuf> {
    find_ncu_pointed(None, "NCU=/path/to/ncu")
}

fn find_ncu_pointed(explicit: Option<&str>, how_to_point: &str) -> Result<PathBuf> {
    let mut looked = Vec::new();
    if let Some(p) = explicit {
        return usable(Path::new(p))
            .ok_or_else(|| Error::new(format!("--ncu {p}: no executable file there")));
    }
    if let Some(p) = std::env::var_os("NCU").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return usable(&p)
            .ok_or_else(|| Error::new(format!("NCU={}: no executable file there", p.display())));
    }
    looked.push("PATH".to_string());
    if let Ok(p) = which::which("ncu") {
        return Ok(p);
    }
    let mut candidates = Vec::new();
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        candidates.push(PathBuf::from(home).join("bin/ncu"));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/ncu"));
    if let Some(newest) = newest_nsight_compute(Path::new("/opt/nvidia/nsight-compute")) {
        candidates.push(newest);
    } else {
        candidates.push(PathBuf::from("/opt/nvidia/nsight-compute/*/ncu"));
    }
    for c in &candidates {
        looked.push(c.display().to_string());
        if let Some(p) = usable(c) {
            return Ok(p);
        }
    }
    Err(Error::new(format!(
        "ncu (Nsight Compute) not found; looked in: {}. Install Nsight Compute, or point gpulint \
         at it with {how_to_point}",
        looked.join(", ")
    )))
}

/// `ncu --version` names Nsight Compute: `--ncu /bin/ls` is not taken for ncu.
pub fn check_is_ncu(ncu: &Path) -> Result<String> {
    let out = std::process::Command::new(ncu)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::new(format!("cannot run {}: {e}", ncu.display())))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.contains("Nsight Compute") {
        let said = text.lines().next().unwrap_or("nothing");
        return Err(Error::new(format!(
            "{} is not Nsight Compute's ncu: `--version` printed {said:?} ({})",
            ncu.display(),
            out.status
        )));
    }
    Ok(text.lines().last().unwrap_or("").trim().to_string())
}

fn usable(p: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(p).ok()?;
    crate::platform::is_executable(&meta).then(|| p.to_path_buf())
}

/// `/opt/nvidia/nsight-compute/2025.3.1/ncu` beats `.../2024.1.0/ncu`: compare the
/// version folders as numbers, part by part.
pub(crate) fn newest_nsight_compute(root: &Path) -> Option<PathBuf> {
    std::fs::read_dir(root)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("ncu").is_file())
        .max_by_key(|e| version_parts(&e.file_name().to_string_lossy()))
        .map(|e| e.path().join("ncu"))
}

/// "2025.3.1" as [2025, 3, 1], to compare versions as numbers, part by part (12.10 after
/// 12.9); a part that is not a number counts as 0.
pub(crate) fn version_parts(version: &str) -> Vec<u64> {
    version.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// The program to profile: a path that must be an executable file, or a name on PATH.
pub fn find_program(program: &Path) -> Result<PathBuf> {
    let shown = crate::printable::path(program);
    if program.components().count() > 1 || program.to_string_lossy().contains('/') {
        if !program.exists() {
            return Err(Error::new(format!("program {shown}: no such file")));
        }
        return usable(program).ok_or_else(|| {
            Error::new(format!(
                "program {shown}: not an executable file (chmod +x?)"
            ))
        });
    }
    which::which(program).map_err(|_| {
        Error::new(format!(
            "program {shown}: not found on PATH (use ./{shown} for a file here)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_version_folder_wins() {
        let root = std::env::temp_dir().join(format!("gpulint-nc-{}", std::process::id()));
        for v in ["2024.1.0", "2025.3.1", "2025.10.0"] {
            std::fs::create_dir_all(root.join(v)).unwrap();
            std::fs::write(root.join(v).join("ncu"), "").unwrap();
        }
        let got = newest_nsight_compute(&root).unwrap();
        assert!(got.ends_with("2025.10.0/ncu"), "{}", got.display());
        std::fs::remove_dir_all(root).unwrap();
    }
}
