//! gpulint's cache folder (`$XDG_CACHE_HOME/gpulint`, else `~/.cache/gpulint`), which the
//! tracer's builds, the chip remembered per machine and `--source`'s memory of a command
//! share: where it is, whether a folder or file in it can be trusted (the user's own,
//! writable by no one else), the folder made private, and the hash that keys its files.

use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits, over `parts` with a 0xff byte after each (which no UTF-8 text holds),
/// so that ("ab", "c") and ("a", "bc") differ.
pub fn fnv1a64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The user's cache folder for gpulint: `$XDG_CACHE_HOME/gpulint`, else `~/.cache/gpulint`.
pub fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(std::env::var_os("HOME")?).join(".cache")))?;
    Some(base.join("gpulint"))
}

/// Why a cache folder or file must not be trusted: not ours, or writable by others.
pub fn untrusted(path: &Path, want_dir: bool) -> Option<String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => return Some(format!("{}: {e}", path.display())),
    };
    let kind_ok = if want_dir {
        meta.is_dir()
    } else {
        meta.file_type().is_file()
    };
    if !kind_ok {
        let want = if want_dir { "a folder" } else { "a plain file" };
        return Some(format!("{} is not {want}", path.display()));
    }
    // Where the system has no owners and modes (Windows), there is nothing more to check.
    if let Some(owner) = crate::platform::owner(&meta)
        && Some(owner) != crate::platform::current_uid()
    {
        return Some(format!(
            "{} is owned by uid {owner}, not by this user",
            path.display()
        ));
    }
    if let Some(mode) = crate::platform::mode(&meta).filter(|m| m & 0o022 != 0) {
        return Some(format!(
            "{} is writable by group or others (mode {:o})",
            path.display(),
            mode & 0o777
        ));
    }
    None
}

/// `dir`, created private (0700) if missing, when it is trusted; else why not.
pub fn private_folder(dir: &Path) -> Result<PathBuf, String> {
    if !dir.exists() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the cache folder {}: {e}", dir.display()))?;
        let _ = crate::platform::set_mode(dir, 0o700);
    }
    match untrusted(dir, true) {
        None => Ok(dir.to_path_buf()),
        Some(why) => Err(format!("cache folder {why}")),
    }
}
