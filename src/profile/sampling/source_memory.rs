//! Whether the last `gpulint run` of the same command had a finding that reads the warps'
//! stall samples on the user's kernels. With `--source`, a sample of at most 10 launches
//! takes the samples in its own run (0.1-0.2 s a launch) because half the programs
//! measured had such a finding; a pass after the sample takes them otherwise (2.7-3.5 s),
//! and only where such a finding comes (lab/runs/2026-12-03-source-cost.txt). Most
//! `--source` runs follow a run without it, whose findings say which way to go. A memory
//! that is wrong costs time, never lines: the pass still comes where a finding needs it.
//!
//! One file per command in gpulint's cache folder (`stalls-KEY.txt`, `yes` or `no`), the
//! key over the command's words and, for each word that names a file (the program, a
//! script), its path, size and modification time.

use std::path::{Path, PathBuf};

use crate::profile::ncu::tracer::cache::{cache_dir, fnv1a64, private_folder, untrusted};

/// The memory's file for `program` (its command line), in `folder`.
fn file_in(folder: &Path, program: &[String]) -> PathBuf {
    let mut parts: Vec<String> = Vec::new();
    for word in program {
        parts.push(word.clone());
        let path = Path::new(word);
        if let (Ok(meta), Ok(full)) = (std::fs::metadata(path), path.canonicalize())
            && meta.is_file()
        {
            let modified = (meta.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            parts.push(format!("{} {} {modified}", full.display(), meta.len()));
        }
    }
    let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    folder.join(format!("stalls-{:016x}.txt", fnv1a64(&bytes)))
}

/// What the last run of `program` found: `Some(true)` when a finding read the stall
/// samples; `None` when no run of it is remembered (or the memory is not to be trusted).
pub fn recall(program: &[String]) -> Option<bool> {
    recall_in(&cache_dir()?, program)
}

fn recall_in(folder: &Path, program: &[String]) -> Option<bool> {
    let file = file_in(folder, program);
    if untrusted(&file, false).is_some() {
        return None;
    }
    match std::fs::read_to_string(&file).ok()?.trim() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// Remembers whether this run of `program` had a finding that reads the stall samples; a
/// cache that cannot be written is no error.
pub fn remember(program: &[String], stall_finding: bool) {
    if let Some(folder) = cache_dir() {
        remember_in(&folder, program, stall_finding);
    }
}

fn remember_in(folder: &Path, program: &[String], stall_finding: bool) {
    if private_folder(folder).is_ok() {
        let said = if stall_finding { "yes\n" } else { "no\n" };
        let _ = crate::atomic_file::write(&file_in(folder, program), said.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    /// Remembered per command: its words, and the files they name as they are now.
    #[test]
    fn a_command_is_remembered_until_it_or_its_files_change() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("gpulint");
        let script = dir.path().join("train.py");
        std::fs::write(&script, "print(1)\n").unwrap();
        let run = words(&["python", script.to_str().unwrap(), "--steps", "20"]);
        assert_eq!(recall_in(&cache, &run), None);
        remember_in(&cache, &run, false);
        assert_eq!(recall_in(&cache, &run), Some(false));
        remember_in(&cache, &run, true);
        assert_eq!(recall_in(&cache, &run), Some(true));
        // Other arguments, another command.
        let other = words(&["python", script.to_str().unwrap(), "--steps", "40"]);
        assert_eq!(recall_in(&cache, &other), None);
        // The script edited: forgotten.
        std::fs::write(&script, "print(2)  # longer\n").unwrap();
        assert_eq!(recall_in(&cache, &run), None);
        // A file that says neither is not read as either.
        remember_in(&cache, &run, false);
        std::fs::write(file_in(&cache, &run), "maybe\n").unwrap();
        assert_eq!(recall_in(&cache, &run), None);
    }
}
