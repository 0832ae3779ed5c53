//! What differs between Unix and other systems: file modes and owners, special files, a
//! duplicate of stdin, signals. `check` needs none of it; `run`'s ncu search and launch tracer do.
//! Elsewhere (Windows), a file's mode and owner are unknown, so the checks that read them
//! pass, and no file is a pipe.

use std::fs::{File, FileType, Metadata};
use std::path::Path;

/// How a process is asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Term,
    Kill,
}

#[cfg(unix)]
mod imp {
    use super::{File, FileType, Metadata, Path, Stop};
    use nix::errno::Errno;
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::unistd::Pid;

    fn signal_of(stop: Stop) -> Signal {
        match stop {
            Stop::Term => Signal::SIGTERM,
            Stop::Kill => Signal::SIGKILL,
        }
    }

    /// Sends `stop` to process `pid`; one already gone is no error.
    pub(crate) fn signal_process(pid: u32, stop: Stop) -> Result<(), String> {
        send(kill, pid, stop, "process")
    }

    /// Sends `stop` to every process of group `pgid`; a group already gone is no error.
    pub(crate) fn signal_group(pgid: u32, stop: Stop) -> Result<(), String> {
        send(killpg, pgid, stop, "process group")
    }

    /// `stop` sent to `id` by `how` (`kill` or `killpg`); an error names `what` and `id`.
    fn send(
        how: fn(Pid, Signal) -> nix::Result<()>,
        id: u32,
        stop: Stop,
        what: &str,
    ) -> Result<(), String> {
        let raw = i32::try_from(id).map_err(|_| format!("no {what} {id}"))?;
        match how(Pid::from_raw(raw), signal_of(stop)) {
            Ok(()) | Err(Errno::ESRCH) => Ok(()),
            Err(e) => Err(format!("{what} {id}: {}", e.desc())),
        }
    }

    /// Makes gpulint the parent of any orphan its children leave (Linux's child
    /// subreaper), so that a program that daemonizes stays in the tree gpulint stops.
    pub(crate) fn adopt_orphans() {
        #[cfg(target_os = "linux")]
        let _ = nix::sys::prctl::set_child_subreaper(true);
    }
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};

    pub(crate) fn is_executable(meta: &Metadata) -> bool {
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }

    pub(crate) fn owner(meta: &Metadata) -> Option<u32> {
        Some(meta.uid())
    }

    /// The uid this process runs as (the owner of its /proc entry).
    pub(crate) fn current_uid() -> Option<u32> {
        std::fs::metadata("/proc/self").ok().map(|m| m.uid())
    }

    pub(crate) fn mode(meta: &Metadata) -> Option<u32> {
        Some(meta.mode())
    }

    pub(crate) fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }

    pub(crate) fn is_pipe(kind: &FileType) -> bool {
        kind.is_fifo() || kind.is_socket()
    }

    /// stdin as a file of its own (its descriptor duplicated), to see what it is.
    pub(crate) fn stdin_file() -> Option<File> {
        std::os::fd::AsFd::as_fd(&std::io::stdin())
            .try_clone_to_owned()
            .ok()
            .map(File::from)
    }
}

#[cfg(not(unix))]
mod imp {
    use super::{File, FileType, Metadata, Path, Stop};

    pub(crate) fn signal_process(pid: u32, _: Stop) -> Result<(), String> {
        Err(format!("process {pid}: signals are Unix's"))
    }

    pub(crate) fn signal_group(pgid: u32, _: Stop) -> Result<(), String> {
        Err(format!("process group {pgid}: signals are Unix's"))
    }

    pub(crate) fn adopt_orphans() {}

    pub(crate) fn is_executable(meta: &Metadata) -> bool {
        meta.is_file()
    }

    pub(crate) fn owner(_: &Metadata) -> Option<u32> {
        None
    }

    pub(crate) fn current_uid() -> Option<u32> {
        None
    }

    pub(crate) fn mode(_: &Metadata) -> Option<u32> {
        None
    }

    pub(crate) fn set_mode(_: &Path, _: u32) -> std::io::Result<()> {
        Ok(())
    }

    pub(crate) fn is_pipe(_: &FileType) -> bool {
        false
    }

    pub(crate) fn stdin_file() -> Option<File> {
        None
    }
}

pub(crate) use imp::{
    adopt_orphans, current_uid, is_executable, is_pipe, mode, owner, set_mode, signal_group,
    signal_process, stdin_file,
};

/// A temporary folder only its owner can enter (0700 on Unix; tempfile's folders follow
/// the umask, 0755 as a rule): ncu's report inside names the program's kernels, and a
/// built library in it is loaded into the program.
pub(crate) fn private_tempdir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
    builder.tempdir()
}
