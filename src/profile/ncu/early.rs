//! The profiled run started beside the traced run, with `--overlap` (the held program
//! listens on every interface while it waits, so it is the user's choice). ncu's
//! `--mode launch` runs the program up
//! to its first CUDA call and holds it there, listening for a profiler; once the traced run
//! has planned the sample, `--mode attach` profiles it with the sample's options. The
//! program's own start (a PyTorch script importing torch and building its model: about 3 s
//! of the transformer's 8-12) then overlaps the traced run instead of following it
//! (lab/runs/2026-12-04-launch-attach.txt).
//!
//! Only on Linux (readiness is read from /proc/net), for one process (not
//! `--target-processes all`), with a stdin both runs can share (the held program reads
//! none), and where the user's ncu options are all of the profiling side: one that ncu
//! takes at the launch (`--replay-mode application` relaunches the program) keeps the
//! runs in sequence. Where the trace shows a second process that
//! started CUDA (a torch.compile worker), that child would be held with nothing to attach
//! to it (the CNN hung 86 s): the held program is stopped, and ncu runs it again.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{Stop, gives_option, interrupted, interrupted_error, signal_group, wait_or_stop_when};
use crate::error::{Error, Result};

/// ncu's options that belong to the program's launch, not to the profiling: given any of
/// them, the runs stay in sequence.
const LAUNCH_SIDE: &[&str] = &[
    "--mode",
    "--hostname",
    "-p",
    "--port",
    "--max-connections",
    "--target-processes",
    "--target-processes-filter",
    "--replay-mode",
    "--app-replay-buffer",
    "--app-replay-match",
    "--app-replay-mode",
    "--injection-path-32",
    "--injection-path-64",
    "--preload-library",
    "--support-32bit",
    "--null-stdin",
    "--check-exit-code",
];

/// With ncu 2025.3.1 an attach over a range of one port found no program (the program
/// listened on it): two ports, the second unused unless the first is taken.
const PORTS: u16 = 2;

/// Whether the user's ncu options let the profiled run start early.
pub fn options_allow(extra_args: &[String]) -> bool {
    !gives_option(extra_args, LAUNCH_SIDE)
}

/// The program under `ncu --mode launch`, held at its first CUDA call until an attach.
/// Dropped before [`WaitingRun::finish`], it is stopped with its whole process tree.
pub struct WaitingRun {
    child: Option<Child>,
    port: u16,
    started: Instant,
}

impl WaitingRun {
    /// Starts `program` under `ncu --mode launch` on two free local ports, its stdin empty
    /// and its stdout on gpulint's stderr when `output_to_stderr`.
    pub fn start(
        ncu: &Path,
        program: &[std::ffi::OsString],
        output_to_stderr: bool,
    ) -> Result<WaitingRun> {
        let port = free_ports()
            .ok_or_else(|| Error::new("no two free local ports for ncu's launch mode"))?;
        let mut command = Command::new(ncu);
        // A child that starts CUDA is held too, and never attached to: a program whose trace
        // shows one is stopped before the attach, and runs again under ncu.
        command
            .args(["--mode", "launch"])
            .args(port_args(port))
            .args(program)
            .stdin(Stdio::null());
        if output_to_stderr {
            command.stdout(std::io::stderr());
        }
        // A group of its own, stopped whole: ncu's launcher may not yet have started the
        // program when the process tree is read, and an orphan would keep gpulint's
        // output pipes open. The terminal's Ctrl-C then reaches gpulint, which stops it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command
            .spawn()
            .map_err(|e| Error::new(format!("cannot start {}: {e}", ncu.display())))?;
        Ok(WaitingRun {
            child: Some(child),
            port,
            started: Instant::now(),
        })
    }

    /// ncu's options that attach to this program, for the end of the profiled run's.
    pub fn attach_args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["--mode", "attach", "--hostname", "127.0.0.1"]
            .map(String::from)
            .to_vec();
        args.extend(port_args(self.port));
        args
    }

    /// Waits until the program listens for the attach (it reached CUDA): `false` when it
    /// ended first, or did not within `limit`, or on Ctrl-C.
    pub fn wait_until_held(&mut self, limit: Duration) -> bool {
        let asked = Instant::now();
        loop {
            if listening(self.port) {
                return true;
            }
            let ended = self
                .child
                .as_mut()
                .is_none_or(|c| c.try_wait().ok().flatten().is_some());
            if ended
                || asked.elapsed() > limit
                || interrupted().load(std::sync::atomic::Ordering::SeqCst)
            {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// How long ago the program was started.
    pub fn age(&self) -> Duration {
        self.started.elapsed()
    }

    /// Once the attach is done: waits for the program's own end (ncu has let it go after
    /// the sample's last launch), stopping it (its whole process tree, SIGTERM, then
    /// SIGKILL 5 s later) at once where `stop`, or once it has run `grace` longer. Returns
    /// how the program ended.
    pub fn finish(mut self, stop: bool, grace: Option<Duration>) -> Result<ExitStatus> {
        let mut child = self.child.take().expect("a program not yet finished");
        let waiting_since = Instant::now();
        let mut stop_now = || stop || grace.is_some_and(|g| waiting_since.elapsed() > g);
        let waited = wait_or_stop_when(
            &mut child,
            interrupted(),
            &mut stop_now,
            Duration::from_secs(5),
        )?;
        let (status, stopped) = (waited.status, waited.stopped_as_hung);
        if interrupted().load(std::sync::atomic::Ordering::SeqCst) {
            return Err(interrupted_error("ncu and the program were", &waited.left));
        }
        if stopped && !stop {
            crate::note!(
                "the program ran on for {} s after ncu's attach ended, three times its traced \
                 run and 20 s more, and was stopped: what ncu profiled is linted",
                waiting_since.elapsed().as_secs()
            );
        }
        Ok(status)
    }
}

impl Drop for WaitingRun {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        // The group first (its id is the launcher's): the launcher may not yet have
        // started the program when the tree is read. Then the tree, as a hung run's, and
        // whatever of the group outlived it.
        let group = child.id();
        signal_group(group, Stop::Term);
        let stop = Duration::from_secs(3);
        let _ = wait_or_stop_when(&mut child, interrupted(), &mut || true, stop);
        signal_group(group, Stop::Kill);
    }
}

fn port_args(port: u16) -> [String; 4] {
    [
        "-p".into(),
        port.to_string(),
        "--max-connections".into(),
        PORTS.to_string(),
    ]
}

/// A port the system calls free on every interface, whose next one is free too.
fn free_ports() -> Option<u16> {
    use std::net::TcpListener;
    for _ in 0..20 {
        let first = TcpListener::bind(("0.0.0.0", 0)).ok()?;
        let port = first.local_addr().ok()?.port();
        let rest_free = (1..PORTS).all(|i| {
            port.checked_add(i)
                .is_some_and(|p| TcpListener::bind(("0.0.0.0", p)).is_ok())
        });
        if rest_free {
            return Some(port);
        }
    }
    None
}

/// Whether a socket listens on one of the ports from `port` on (IPv4 or IPv6).
fn listening(port: u16) -> bool {
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|table| {
        std::fs::read_to_string(table)
            .is_ok_and(|text| listens_in(&text, port..port.saturating_add(PORTS)))
    })
}

/// Whether a /proc/net/tcp table lists a listening socket (state 0A) on a port of `ports`.
fn listens_in(table: &str, ports: std::ops::Range<u16>) -> bool {
    table.lines().skip(1).any(|line| {
        let mut fields = line.split_whitespace();
        let local = fields.nth(1).unwrap_or("");
        let state = fields.nth(1).unwrap_or("");
        let port = local
            .rsplit_once(':')
            .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
        state == "0A" && port.is_some_and(|p| ports.contains(&p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// /proc/net/tcp as the H200 machine showed it while ncu's launch held the
    /// transformer on port 49152 (0xC000) and 2024 (0x07E8), with two closed connections
    /// from an earlier attach to port 8099 (lab/runs/2026-12-04-launch-attach.txt).
    const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:C000 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 15375 1 00000000a15d759c 100 0 0 10 0
   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5162 1 000000000d4b187e 100 0 0 10 0
   2: 0100007F:1FA3 0100007F:8CE2 06 00000000:00000000 03:00000AB4 00000000     0        0 0 3 0000000027baebe5
";

    #[test]
    fn a_port_listens_only_in_state_0a() {
        assert!(listens_in(TABLE, 49152..49154));
        assert!(listens_in(TABLE, 49151..49153));
        assert!(!listens_in(TABLE, 49153..49155));
        // 0x1FA3 is only a local end of a closed connection.
        assert!(!listens_in(TABLE, 8099..8101));
        assert!(!listens_in("", 49152..49154));
    }

    #[test]
    fn the_launch_options_keep_the_runs_in_sequence() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(options_allow(&args(&["--clock-control", "none"])));
        assert!(options_allow(&[]));
        assert!(!options_allow(&args(&["--replay-mode", "application"])));
        assert!(!options_allow(&args(&["--replay-mode=application"])));
        assert!(!options_allow(&args(&["-p", "50000"])));
    }

    #[test]
    fn the_two_ports_chosen_are_free() {
        let port = free_ports().expect("free ports on this machine");
        for p in port..port + PORTS {
            assert!(std::net::TcpListener::bind(("0.0.0.0", p)).is_ok(), "{p}");
        }
    }
}
