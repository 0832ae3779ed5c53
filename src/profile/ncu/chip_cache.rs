//! The chip `ncu --query-metrics` named, remembered per machine: the question takes about
//! 1.4 s on the H200 (lab/runs/2026-12-02-cost.txt), a short program's traced run 0.4 s.
//! The answer is kept under the key of what could change it: the ncu binary (path, size,
//! modification time), the GPUs the driver lists (`/proc/driver/nvidia/gpus`) and
//! `CUDA_VISIBLE_DEVICES`. Without the driver's list nothing is kept: the key would not
//! see a new GPU.

use std::path::{Path, PathBuf};

use crate::chips::Chip;
use crate::profile::cache_folder::{cache_dir, fnv1a64, private_folder, untrusted};

/// Where the driver lists the GPUs on Linux.
const DRIVER_GPUS: &str = "/proc/driver/nvidia/gpus";

/// The cache file for `ncu` on this machine; `None` without the driver's GPU list or a
/// cache folder.
pub fn cache_file(ncu: &Path) -> Option<PathBuf> {
    let key = key(ncu, Path::new(DRIVER_GPUS))?;
    Some(cache_dir()?.join(format!("chip-{key:016x}.txt")))
}

/// The key: ncu's identity, each GPU's bus id and model, and the visible devices.
fn key(ncu: &Path, driver_gpus: &Path) -> Option<u64> {
    let meta = std::fs::metadata(ncu).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    let mut gpus: Vec<String> = std::fs::read_dir(driver_gpus)
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let info = std::fs::read_to_string(e.path().join("information")).ok()?;
            let model = info.lines().find(|l| l.starts_with("Model:"))?.to_string();
            Some(format!("{} {model}", e.file_name().to_string_lossy()))
        })
        .collect();
    if gpus.is_empty() {
        return None;
    }
    gpus.sort();
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").unwrap_or_default();
    let path = ncu.to_string_lossy();
    let (size, modified) = (meta.len().to_string(), modified.to_string());
    let mut parts: Vec<&[u8]> = vec![path.as_bytes(), size.as_bytes(), modified.as_bytes()];
    parts.extend(gpus.iter().map(|g| g.as_bytes()));
    parts.push(visible.as_bytes());
    Some(fnv1a64(&parts))
}

/// The chip remembered in `file`, when it is ours and names a chip ncu knows.
pub fn read(file: &Path) -> Option<Chip> {
    if untrusted(file, false).is_some() {
        return None;
    }
    let name = std::fs::read_to_string(file).ok()?;
    crate::chips::find(name.trim())
}

/// Remembers `chip` in `file`; a cache that cannot be written is no error.
pub fn write(file: &Path, chip: Chip) {
    let Some(dir) = file.parent() else { return };
    if private_folder(dir).is_ok() {
        let _ = crate::atomic_file::write(file, format!("{}\n", chip.name).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver_list(root: &Path, gpus: &[(&str, &str)]) {
        for (bus, model) in gpus {
            let dir = root.join(bus);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("information"),
                format!("Model: \t\t {model}\nIRQ:   42\n"),
            )
            .unwrap();
        }
    }

    #[test]
    fn the_key_follows_the_gpus_and_ncu_and_nothing_is_kept_without_the_driver_list() {
        let dir = tempfile::tempdir().unwrap();
        let ncu = dir.path().join("ncu");
        std::fs::write(&ncu, "stand-in").unwrap();
        let one = dir.path().join("one");
        driver_list(&one, &[("0000:19:00.0", "NVIDIA H200")]);
        let other = dir.path().join("other");
        driver_list(&other, &[("0000:19:00.0", "NVIDIA L4")]);
        let a = key(&ncu, &one).unwrap();
        assert_eq!(key(&ncu, &one), Some(a), "stable");
        assert_ne!(key(&ncu, &other), Some(a), "another GPU");
        std::fs::write(&ncu, "another ncu").unwrap();
        assert_ne!(key(&ncu, &one), Some(a), "another ncu");
        assert_eq!(key(&ncu, &dir.path().join("none")), None);
    }

    #[test]
    fn a_remembered_chip_is_read_back_and_a_foreign_name_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("gpulint");
        let file = folder.join("chip-1.txt");
        write(&file, crate::chips::find("gh100").unwrap());
        assert_eq!(read(&file).map(|c| c.name), Some("gh100"));
        std::fs::write(&file, "not a chip\n").unwrap();
        assert!(read(&file).is_none());
    }
}
