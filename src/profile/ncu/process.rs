//! Waiting on ncu and the program, and stopping them: Ctrl-C, a hung run, the process tree.

use super::{AtomicBool, Duration, Error, Ordering, Path, Result, profiled_so_far};
pub(crate) use crate::platform::Stop;

/// Set by Ctrl-C, which reaches ncu and the program too (one process group), and by
/// SIGTERM or SIGHUP, which reach gpulint alone. The handler is installed once per
/// process: a second `ctrlc::set_handler` fails, and a run after the first (the traced
/// run, then ncu) would never see the flag it made. gpulint also becomes the parent of
/// the orphans its children leave (`platform::adopt_orphans`), so a stop finds them.
pub(crate) fn interrupted() -> &'static AtomicBool {
    static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    static HANDLER: std::sync::Once = std::sync::Once::new();
    HANDLER.call_once(|| {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
        crate::platform::adopt_orphans();
    });
    &INTERRUPTED
}

/// How a waited-for child ended.
pub(crate) struct Waited {
    pub status: std::process::ExitStatus,
    /// Stopped because `hung` said so.
    pub stopped_as_hung: bool,
    /// The processes of the stopped tree still alive after SIGKILL (a process in the
    /// kernel's uninterruptible sleep): none where nothing was stopped.
    pub left: Vec<u32>,
}

/// Waits for ncu, or for the traced program. After an interrupt, the child normally
/// stops by itself (Ctrl-C reaches the terminal's whole process group); if it has not
/// within 3 s, every process descended from gpulint gets SIGTERM (SIGTERM and SIGHUP reach
/// gpulint alone), then SIGKILL at 6 s, and the wait lasts until all of them are gone. A
/// child that `hung` says is hung gets SIGTERM at once, with its tree (ncu then shuts its
/// target down and writes the report of what it profiled), SIGKILL `kill_after_hung` later.
pub(crate) fn wait_or_stop_when(
    child: &mut std::process::Child,
    interrupted: &AtomicBool,
    hung: &mut dyn FnMut() -> bool,
    kill_after_hung: Duration,
) -> Result<Waited> {
    // When the stop began, and how long to wait before SIGTERM and then SIGKILL.
    let mut since: Option<(std::time::Instant, Duration, Duration)> = None;
    // The processes to stop, taken when the stop begins: the hung child's tree, or on an
    // interrupt everything gpulint started (a held run beside this one too).
    let mut tree: Vec<u32> = Vec::new();
    let (mut termed, mut killed_at) = (false, None);
    let mut stopped_as_hung = false;
    let mut exited = None;
    let mut signalled_at: Option<std::time::Instant> = None;
    loop {
        if exited.is_none() {
            exited = child
                .try_wait()
                .map_err(|e| Error::new(format!("waiting for ncu or the program: {e}")))?;
        }
        // A stopped tree is waited for whole: no process of it is left behind.
        let left: Vec<u32> = tree
            .iter()
            .copied()
            .filter(|&p| process_exists(p))
            .collect();
        let given_up =
            killed_at.is_some_and(|t: std::time::Instant| t.elapsed() > Duration::from_secs(2));
        // A child that a stop signal ended (Ctrl-C reaches the whole group at once) may
        // end before gpulint's own handler has set the flag: a moment for it, so that the
        // run is told as interrupted, not as ncu's failure.
        let signal_pending = since.is_none()
            && exited.is_some_and(ended_by_stop_signal)
            && signalled_at
                .get_or_insert_with(std::time::Instant::now)
                .elapsed()
                < Duration::from_secs(1)
            && !interrupted.load(Ordering::SeqCst);
        if let Some(status) = exited.filter(|_| (left.is_empty() || given_up) && !signal_pending) {
            return Ok(Waited {
                status,
                stopped_as_hung,
                left,
            });
        }
        if since.is_none() {
            let now = std::time::Instant::now();
            if interrupted.load(Ordering::SeqCst) {
                since = Some((now, Duration::from_secs(3), Duration::from_secs(6)));
                tree = descendants_of_gpulint();
            } else if hung() {
                since = Some((now, Duration::ZERO, kill_after_hung));
                stopped_as_hung = true;
                tree = process_tree(child.id());
            }
        }
        if let Some((t, term_after, kill_after)) = since {
            // The tree as it is now: a stop may begin (and a hung run's SIGTERM is due) in
            // the pass that took it.
            let alive = || -> Vec<u32> {
                tree.iter()
                    .copied()
                    .filter(|&p| process_exists(p))
                    .collect()
            };
            if !termed && t.elapsed() >= term_after {
                signal(&alive(), Stop::Term);
                termed = true;
            } else if killed_at.is_none() && t.elapsed() > kill_after {
                signal(&alive(), Stop::Kill);
                let _ = child.kill();
                killed_at = Some(std::time::Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether a child ended by SIGINT, SIGTERM or SIGHUP (never elsewhere than on Unix).
fn ended_by_stop_signal(status: std::process::ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        matches!(status.signal(), Some(1 | 2 | 15))
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        false
    }
}

/// Every process descended from gpulint, itself left out.
fn descendants_of_gpulint() -> Vec<u32> {
    let mut tree = process_tree(std::process::id());
    tree.remove(0);
    tree
}

/// "interrupted; WHAT stopped", or, where some survived SIGKILL, which: said as it is.
pub(crate) fn interrupted_error(what: &str, left: &[u32]) -> Error {
    if left.is_empty() {
        return Error::new(format!("interrupted; {what} stopped"));
    }
    let pids: Vec<String> = left.iter().map(u32::to_string).collect();
    Error::new(format!(
        "interrupted; {what} sent SIGKILL, but process(es) {} outlived it (a process in \
         the kernel's uninterruptible sleep ends when its call returns)",
        pids.join(", ")
    ))
}

/// `pid` and every process descended from it, from /proc (parents before children).
pub(crate) fn process_tree(pid: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(id) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parent_of.push((id, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parent_of
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    tree
}

pub(super) fn process_exists(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
    })
}

/// Sends `stop` to each process of `pids`; a failure other than a process already gone
/// is said once per call.
pub(crate) fn signal(pids: &[u32], stop: Stop) {
    let failed: Vec<String> = pids
        .iter()
        .filter_map(|&p| crate::platform::signal_process(p, stop).err())
        .collect();
    if let Some(first) = failed.first() {
        crate::warning!(
            "could not signal {} process(es) to stop: {first}",
            failed.len()
        );
    }
}

/// Sends `stop` to every process of the group `pgid` (a child started as a group's
/// leader), those its tree no longer holds too.
pub(crate) fn signal_group(pgid: u32, stop: Stop) {
    if let Err(e) = crate::platform::signal_group(pgid, stop) {
        crate::warning!("could not signal a process group to stop: {e}");
    }
}

/// How long a run may do nothing before it is called hung: 20 s plus three times the whole
/// traced run of the program (see [`HangWatch`]).
pub(crate) fn hang_grace(traced_run_time: Duration) -> Duration {
    Duration::from_secs(20) + traced_run_time * 3
}

/// Tells an ncu run that hangs: its log, where ncu writes a line as each chosen launch is
/// profiled, says nothing new for `grace`, 20 s plus three times the whole traced run of
/// the program. The program then outlived its expected time by a wide margin with no
/// profiling: seen with ncu 2025.3.1 on programs that fork after starting CUDA (right
/// after the fork) and on ones that exec (after the last launch).
pub struct HangWatch {
    pub(super) launches: u64,
    pub(super) traced_run_time: Duration,
    pub(super) grace: Duration,
    pub(super) log_len: std::cell::Cell<u64>,
    pub(super) quiet_since: std::cell::Cell<Option<std::time::Instant>>,
    /// When the first profiled launch was seen in the log, and how many were done then.
    first_done: std::cell::Cell<Option<(std::time::Instant, u64)>>,
    /// Whether the user was told the launches cost more than the budget assumed.
    said_slow: std::cell::Cell<bool>,
    /// Under `--window`: how long ncu's run may take from the watch's start, and whether
    /// it was stopped for that.
    bound: Option<Duration>,
    started: std::time::Instant,
    past_bound: std::cell::Cell<bool>,
}

/// What one profiled launch costs, at 9 replay passes, as the sample's budget assumes (on
/// the H200, with small kernels: lab/gpu-runs.md, "One launch per configuration"; cuDNN's
/// and cuBLAS's cost the same, 0.21-0.39 s at 10). The time between two profiled launches
/// also holds the program's own work between them, which ncu slowed to 1.21 s a step of a
/// PyTorch loop until it was told the sample's launch count: about 2.5 s between the CNN's
/// launches then (lab/runs/2026-12-03-launch-count.txt).
pub const SECONDS_PER_LAUNCH: f64 = 0.33;

/// Launches this many times slower than [`SECONDS_PER_LAUNCH`], over [`SLOW_AFTER`] of
/// them, are said to be: the run will take longer than its budget said.
const SLOW_FACTOR: f64 = 3.0;
const SLOW_AFTER: u64 = 3;

impl HangWatch {
    pub fn new(launches: u64, traced_run_time: Duration) -> HangWatch {
        HangWatch {
            launches,
            traced_run_time,
            grace: hang_grace(traced_run_time),
            log_len: std::cell::Cell::new(0),
            quiet_since: std::cell::Cell::new(None),
            first_done: std::cell::Cell::new(None),
            said_slow: std::cell::Cell::new(false),
            bound: None,
            started: std::time::Instant::now(),
            past_bound: std::cell::Cell::new(false),
        }
    }

    /// Under `--window W`, ncu's run is stopped (as a hung one is, so that ncu writes the
    /// report of what it profiled) once it has taken the traced run's time, or W if more,
    /// plus [`SECONDS_PER_LAUNCH`] for each chosen launch. The user asked for a report in
    /// bounded time, and the run before the sample's last launch can take far longer under
    /// ncu than the program's own: on the H200 a PyTorch loop's model kernels came ten
    /// steps in, and ncu's run took 127 s after a traced run of 27 s
    /// (lab/runs/2026-12-05-augment.txt).
    pub fn bounded(mut self, window: Duration) -> HangWatch {
        let each = Duration::from_secs_f64(SECONDS_PER_LAUNCH);
        let launches = u32::try_from(self.launches).unwrap_or(u32::MAX);
        self.bound = Some(self.traced_run_time.max(window) + each * launches);
        self
    }

    /// The bound ncu's run was stopped at, where it was.
    pub fn past_bound(&self) -> Option<Duration> {
        self.bound.filter(|_| self.past_bound.get())
    }

    /// For a run that writes nothing to its log while it profiles (its source pages printed
    /// with `--csv`, which drops ncu's line per launch): 3 s more grace a launch.
    pub fn quiet_while_profiling(mut self) -> HangWatch {
        self.grace += Duration::from_secs(3 * self.launches);
        self
    }

    pub(super) fn hung(&self, log: &Path) -> bool {
        let len = std::fs::metadata(log).map_or(0, |m| m.len());
        let now = std::time::Instant::now();
        if self
            .bound
            .is_some_and(|b| now.duration_since(self.started) >= b)
        {
            self.past_bound.set(true);
            return true;
        }
        if len != self.log_len.get() || self.quiet_since.get().is_none() {
            self.log_len.set(len);
            self.quiet_since.set(Some(now));
            self.say_if_slow(log, now);
            return false;
        }
        self.quiet_since
            .get()
            .is_some_and(|t| now.duration_since(t) >= self.grace)
    }

    /// Once [`SLOW_AFTER`] launches past the first are done at [`SLOW_FACTOR`] times the
    /// budget's cost or more, says so, with the time the rest will take and how to bound
    /// such a run: the sample's budget was set before any launch was profiled.
    fn say_if_slow(&self, log: &Path, now: std::time::Instant) {
        if self.said_slow.get() {
            return;
        }
        let done = self.profiled(log);
        let Some((first_at, first)) = self.first_done.get() else {
            if done > 0 {
                self.first_done.set(Some((now, done)));
            }
            return;
        };
        if done < first + SLOW_AFTER {
            return;
        }
        let each = now.duration_since(first_at).as_secs_f64() / (done - first) as f64;
        if each < SLOW_FACTOR * SECONDS_PER_LAUNCH {
            return;
        }
        self.said_slow.set(true);
        let left = self.launches.saturating_sub(done);
        crate::note!(
            "profiled launches take {each:.1} s each here, {:.0}x what the sample's budget \
             assumed ({SECONDS_PER_LAUNCH} s): the {left} left take about {:.0} s more; \
             --max-launches N or --stop-once-profiled bounds a run like this",
            each / SECONDS_PER_LAUNCH,
            each * left as f64
        );
    }

    /// Launches profiled so far, by the log.
    pub(super) fn profiled(&self, log: &Path) -> u64 {
        profiled_so_far(&std::fs::read_to_string(log).unwrap_or_default()).launches
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Under --window W, ncu's run may take the traced run's time, or W if more, plus
    /// 0.33 s a chosen launch; a watch without a window has no bound.
    #[test]
    fn the_window_bound_is_the_traced_run_or_the_window_and_the_launches() {
        let secs = |w: &HangWatch| w.bound.map(|b| (b.as_secs_f64() * 100.0).round() / 100.0);
        let traced = Duration::from_secs(27);
        assert_eq!(secs(&HangWatch::new(20, traced)), None);
        let bounded = HangWatch::new(20, traced).bounded(Duration::from_secs(20));
        assert_eq!(secs(&bounded), Some(33.6));
        let short = HangWatch::new(3, Duration::from_secs(2)).bounded(Duration::from_secs(20));
        assert_eq!(secs(&short), Some(20.99));
        assert_eq!(bounded.past_bound(), None);
    }

    /// A run called hung gets SIGTERM at once, its whole tree, so that ncu can write the
    /// report of what it profiled; SIGKILL comes only `kill_after_hung` later, to what
    /// outlived it. (The stop begins in the pass that takes the tree: a SIGTERM sent to
    /// the tree as the pass began went to nobody.)
    #[test]
    fn a_hung_run_gets_sigterm_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let termed = dir.path().join("termed");
        let script = format!(
            "trap 'echo yes > {}; exit 0' TERM; sleep 30 & wait",
            termed.display()
        );
        let mut child = std::process::Command::new("sh")
            .args(["-c", &script])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let started = std::time::Instant::now();
        let not_interrupted = AtomicBool::new(false);
        let waited = wait_or_stop_when(
            &mut child,
            &not_interrupted,
            &mut || true,
            Duration::from_secs(5),
        )
        .unwrap();
        assert!(waited.stopped_as_hung);
        assert!(termed.exists(), "the hung run never got SIGTERM");
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "stopped only by SIGKILL, after {:?}",
            started.elapsed()
        );
        assert!(waited.left.is_empty(), "{:?}", waited.left);
    }
}
