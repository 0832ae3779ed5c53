//! Files the user asked for appear whole or not at all: written to a temporary file in
//! the destination's folder, then renamed over the destination. Only a regular file (or a
//! new path) is replaced so: a device, FIFO or `/dev/fd/N` is opened and written, a
//! symbolic link is followed and its target replaced, and `-` is stdout. Nothing that is
//! not a regular file is ever unlinked.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where an output goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// `-`, `/dev/stdout`, `/dev/fd/1`: gpulint's own stdout.
    Stdout,
    /// `/dev/stderr`, `/dev/fd/2`.
    Stderr,
    /// A device, FIFO, socket or other `/dev/fd/N`: opened and written, never replaced.
    WriteThrough(PathBuf),
    /// A regular file or a new path (a link's target, links followed): replaced whole.
    Replace(PathBuf),
}

/// What writing to `dest` means (see [`Target`]).
pub fn target(dest: &Path) -> Result<Target> {
    let text = dest.to_string_lossy();
    match text.as_ref() {
        "-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => return Ok(Target::Stdout),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => return Ok(Target::Stderr),
        _ => {}
    }
    // The process's own descriptors: a pipe or file opened by the shell (`-o >(wc -l)`).
    if text.starts_with("/dev/fd/") || text.starts_with("/proc/self/fd/") {
        return Ok(Target::WriteThrough(dest.to_path_buf()));
    }
    match std::fs::metadata(dest) {
        Ok(m) if m.is_dir() => Err(Error::in_file(
            &text,
            "cannot write: it is a folder; give a file name",
        )),
        Ok(m) if !m.is_file() => Ok(Target::WriteThrough(dest.to_path_buf())),
        _ => Ok(Target::Replace(resolve_links(dest))),
    }
}

/// `dest` with symbolic links followed, also to a target that does not exist yet.
fn resolve_links(dest: &Path) -> PathBuf {
    let mut path = dest.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(next) => {
                path = match path.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
            }
            Err(_) => return path,
        }
    }
    path
}

/// A temporary file to be put in place at `dest` with [`persist`]: in the destination's
/// folder when it is replaced, else in the temporary folder.
pub fn temp_beside(dest: &Path) -> Result<tempfile::NamedTempFile> {
    let Target::Replace(replaced) = target(dest)? else {
        return tempfile::NamedTempFile::new().map_err(|e| {
            Error::in_file(
                &dest.display().to_string(),
                format!("cannot write: no temporary file: {e}"),
            )
        });
    };
    refuse_unwritable(&replaced, dest)?;
    let dir = replaced
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // The temporary file's own name means nothing to the user: say what is wrong with
    // the folder instead.
    tempfile::NamedTempFile::new_in(dir).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => format!("the folder {} does not exist", dir.display()),
            kind => format!(
                "cannot create a file in {}: {}",
                dir.display(),
                std::io::Error::from(kind)
            ),
        };
        Error::in_file(&dest.display().to_string(), format!("cannot write: {why}"))
    })
}

/// A rename replaces a file whatever its mode or owner. The shell's `>` would refuse a
/// read-only file, or another user's: so does gpulint. Opening for writing (without
/// truncating) asks the system the same question `>` asks, and changes nothing.
fn refuse_unwritable(replaced: &Path, dest: &Path) -> Result<()> {
    if !replaced.is_file() {
        return Ok(());
    }
    match std::fs::OpenOptions::new().write(true).open(replaced) {
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(Error::in_file(
            &dest.display().to_string(),
            "cannot write: permission denied (the file is read-only, or not yours to write); \
             gpulint does not replace a file the shell's `>` could not write",
        )),
        _ => Ok(()),
    }
}

/// Puts `tmp` in place at `dest`: renamed over a regular file (a link's target), or copied
/// into stdout, stderr, a device or a FIFO.
pub fn persist(tmp: tempfile::NamedTempFile, dest: &Path) -> Result<()> {
    let cannot = |e: std::io::Error| {
        Error::in_file(&dest.display().to_string(), format!("cannot write: {e}"))
    };
    let copy_into = |out: &mut dyn Write| -> std::io::Result<()> {
        std::io::copy(&mut std::fs::File::open(tmp.path())?, out)?;
        out.flush()
    };
    let replaced = match target(dest)? {
        Target::Replace(path) => path,
        Target::Stdout => return copy_into(&mut std::io::stdout().lock()).map_err(cannot),
        Target::Stderr => return copy_into(&mut std::io::stderr().lock()).map_err(cannot),
        Target::WriteThrough(path) => {
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(cannot)?;
            return copy_into(&mut out).map_err(cannot);
        }
    };
    // tempfile creates 0600 files: a replaced file keeps its mode (a script its exec
    // bit), and a new one is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&replaced)
            .ok()
            .filter(|m| m.is_file())
            .map_or(0o644, |m| m.permissions().mode() & 0o7777);
        let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode));
    }
    tmp.persist(&replaced).map_err(|e| {
        Error::in_file(
            &dest.display().to_string(),
            format!("cannot write: {}", e.error),
        )
    })?;
    Ok(())
}

/// Writes `bytes` to `dest` through a temporary file.
pub fn write(dest: &Path, bytes: &[u8]) -> Result<()> {
    write_with(dest, |tmp| tmp.write_all(bytes))
}

/// Copies a file to `dest` as [`write()`] writes, without reading it whole.
pub fn copy(src: &Path, dest: &Path) -> Result<()> {
    write_with(dest, |tmp| {
        std::io::copy(&mut std::fs::File::open(src)?, tmp).map(|_| ())
    })
}

fn write_with(
    dest: &Path,
    write: impl FnOnce(&mut tempfile::NamedTempFile) -> std::io::Result<()>,
) -> Result<()> {
    let mut tmp = temp_beside(dest)?;
    write(&mut tmp)
        .and_then(|_| tmp.flush())
        .map_err(|e| Error::in_file(&dest.display().to_string(), format!("cannot write: {e}")))?;
    persist(tmp, dest)
}
