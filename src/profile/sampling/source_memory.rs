//! What the last `gpulint run` of the same command found, for the next `--source` run:
//! whether a finding on the user's kernels read the warps' stall samples, and which of the
//! user's kernels had a finding with a cause on a line. With `--source` the traced run
//! samples the stalls only where the last run read them (about 0.5 s a run), and counts
//! the source lines only of the kernels it names, each of whose first launches runs
//! instrumented (matmul_variants' 2048^3 matmuls: 1.1 s for six;
//! lab/runs/2026-12-04-stall-lines.txt). Most `--source` runs follow a run without it,
//! whose findings say which way to go. A memory that is wrong costs time, never lines: a
//! pass after the sample reads what a finding needs and the traced run did not give.
//!
//! `--verbose` says what was recalled, and `GPULINT_SOURCE_MEMORY=off` goes without it.
//!
//! One file per command in gpulint's cache folder (`stalls-KEY.txt`: `yes` or `no`, then
//! one kernel's mangled name a line), the key over the command's words and, for each word
//! that names a file (the program, a script), its path, size and modification time.

use std::path::{Path, PathBuf};

use crate::profile::cache_folder::{cache_dir, fnv1a64, private_folder, untrusted};

/// The memory's file for `program` (its command line), in `folder`.
fn file_in(folder: &Path, program: &[std::ffi::OsString]) -> PathBuf {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for word in program {
        parts.push(word.as_encoded_bytes().to_vec());
        let path = Path::new(word);
        if let (Ok(meta), Ok(full)) = (std::fs::metadata(path), path.canonicalize())
            && meta.is_file()
        {
            let modified = (meta.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            parts.push(format!("{} {} {modified}", full.display(), meta.len()).into_bytes());
        }
    }
    let bytes: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    folder.join(format!("stalls-{:016x}.txt", fnv1a64(&bytes)))
}

/// What the last run of a command found.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    /// A finding on the user's kernels read the warps' stall samples.
    pub stall_finding: bool,
    /// The user's kernels (mangled) with a finding whose cause sits on a line; empty where
    /// a memory from before they were kept says nothing of them.
    pub line_kernels: Vec<String>,
}

/// `GPULINT_SOURCE_MEMORY=off`: nothing is recalled or remembered, so that two identical
/// commands profile alike (a bug report then needs no one's cache).
pub const MEMORY_ENV: &str = "GPULINT_SOURCE_MEMORY";

/// Whether `GPULINT_SOURCE_MEMORY=off` says to go without the memory.
pub fn switched_off() -> bool {
    std::env::var_os(MEMORY_ENV).is_some_and(|v| v == "off")
}

/// Where the memory of `program` is kept, for `--verbose` to say.
pub fn file_of(program: &[std::ffi::OsString]) -> Option<PathBuf> {
    Some(file_in(&cache_dir()?, program))
}

/// What the last run of `program` found; `None` when no run of it is remembered (or the
/// memory is not to be trusted, or is switched off).
pub fn recall(program: &[std::ffi::OsString]) -> Option<Memory> {
    if switched_off() {
        return None;
    }
    recall_in(&cache_dir()?, program)
}

fn recall_in(folder: &Path, program: &[std::ffi::OsString]) -> Option<Memory> {
    let file = file_in(folder, program);
    if untrusted(&file, false).is_some() {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let mut lines = text.lines();
    let stall_finding = match lines.next()?.trim() {
        "yes" => true,
        "no" => false,
        _ => return None,
    };
    let line_kernels = (lines.map(str::trim))
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    Some(Memory {
        stall_finding,
        line_kernels,
    })
}

/// Remembers what this run of `program` found; a cache that cannot be written is no error.
pub fn remember(program: &[std::ffi::OsString], memory: &Memory) {
    if switched_off() {
        return;
    }
    if let Some(folder) = cache_dir() {
        remember_in(&folder, program, memory);
    }
}

fn remember_in(folder: &Path, program: &[std::ffi::OsString], memory: &Memory) {
    if private_folder(folder).is_ok() {
        let mut said = String::from(if memory.stall_finding {
            "yes\n"
        } else {
            "no\n"
        });
        for kernel in &memory.line_kernels {
            said.push_str(kernel);
            said.push('\n');
        }
        let _ = crate::atomic_file::write(&file_in(folder, program), said.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn memory(stall_finding: bool, kernels: &[&str]) -> Memory {
        Memory {
            stall_finding,
            line_kernels: words(kernels),
        }
    }

    /// Remembered per command: its words, and the files they name as they are now.
    #[test]
    fn a_command_is_remembered_until_it_or_its_files_change() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("gpulint");
        let script = dir.path().join("train.py");
        std::fs::write(&script, "print(1)\n").unwrap();
        let command =
            |w: &[&str]| -> Vec<std::ffi::OsString> { w.iter().map(Into::into).collect() };
        let run = command(&["python", script.to_str().unwrap(), "--steps", "20"]);
        assert_eq!(recall_in(&cache, &run), None);
        remember_in(&cache, &run, &memory(false, &[]));
        assert_eq!(recall_in(&cache, &run), Some(memory(false, &[])));
        let found = memory(true, &["_Z4tilePKfPfi", "_Z5otherv"]);
        remember_in(&cache, &run, &found);
        assert_eq!(recall_in(&cache, &run), Some(found));
        // Other arguments, another command.
        let other = command(&["python", script.to_str().unwrap(), "--steps", "40"]);
        assert_eq!(recall_in(&cache, &other), None);
        // The script edited: forgotten.
        std::fs::write(&script, "print(2)  # longer\n").unwrap();
        assert_eq!(recall_in(&cache, &run), None);
        // A file that says neither is not read as either.
        remember_in(&cache, &run, &memory(false, &[]));
        std::fs::write(file_in(&cache, &run), "maybe\n").unwrap();
        assert_eq!(recall_in(&cache, &run), None);
        // A memory written before the kernels were kept names none.
        std::fs::write(file_in(&cache, &run), "no\n").unwrap();
        assert_eq!(recall_in(&cache, &run), Some(memory(false, &[])));
    }
}
