//! Files the user asked for appear whole or not at all: written to a temporary file in
//! the destination's folder, then renamed over the destination.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// A temporary file in `dest`'s folder, to be put in place with [`persist`].
pub fn temp_beside(dest: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = dest
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

/// Renames `tmp` over `dest`, as an ordinary file.
pub fn persist(tmp: tempfile::NamedTempFile, dest: &Path) -> Result<()> {
    // tempfile creates 0600 files; an output the user asked for is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(dest).map_err(|e| {
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

/// Copies a file to `dest` as [`write`] writes, without reading it whole.
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
