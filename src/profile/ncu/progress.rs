//! What ncu's log says while it runs: the launches profiled so far, for the progress line.

use super::{Arc, AtomicBool, Duration, Ordering, PathBuf};

/// What ncu's log says it has profiled so far.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Profiled {
    /// Launches whose every pass is done.
    pub(super) launches: u64,
    /// Replay passes per launch, of the last one done.
    pub(super) passes: Option<u64>,
    /// The kernel of the last launch begun.
    pub(super) last: Option<String>,
}

/// Reads ncu's `==PROF== Profiling "1:7:lud_diagonal(float *, int, int):1": 0%....100% -
/// 8 passes` lines (`"name" - 0: ...` before 2023). A line without its passes is the
/// launch being profiled.
pub(super) fn profiled_so_far(log: &str) -> Profiled {
    let mut seen = Profiled::default();
    for line in log.lines().filter(|l| l.starts_with("==PROF== Profiling ")) {
        let Some(quoted) = line.split('"').nth(1) else {
            continue;
        };
        seen.last = Some(kernel_of_profiling_line(quoted).to_string());
        let passes = line
            .rsplit_once(" - ")
            .and_then(|(_, tail)| {
                tail.strip_suffix(" passes")
                    .or_else(|| tail.strip_suffix(" pass"))
            })
            .and_then(|n| n.trim().parse().ok());
        if passes.is_some() {
            seen.launches += 1;
            seen.passes = passes;
        }
    }
    seen
}

/// `1:7:name(args):3` (context, stream, name, launch number of that kernel) or `name`.
pub(super) fn kernel_of_profiling_line(quoted: &str) -> &str {
    let mut fields = quoted.splitn(3, ':');
    let (context, stream, rest) = (fields.next(), fields.next(), fields.next());
    let numeric =
        |f: Option<&str>| f.is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    match rest {
        Some(rest) if numeric(context) && numeric(stream) => match rest.rsplit_once(':') {
            Some((name, n)) if numeric(Some(n)) => name,
            _ => rest,
        },
        _ => quoted,
    }
}

/// What the progress line says before a launch is seen done.
#[derive(Debug, Clone, Copy)]
pub(super) enum Activity {
    Profiling,
    Timing,
}

/// One status line: what is done, and the time so far or, when the number of launches to
/// profile is known, about how much is left.
pub(super) fn progress_line(
    activity: Activity,
    seen: &Profiled,
    expected: Option<u64>,
    elapsed: u64,
    left: Option<u64>,
) -> String {
    if seen.launches == 0 {
        // With its source pages printed (`--csv`), ncu logs no launch as done: the count
        // to profile is all the line can tell.
        return match (activity, expected) {
            (Activity::Profiling, Some(n)) => {
                format!("ncu is profiling the program, {n} launch(es) to profile, {elapsed} s")
            }
            (Activity::Profiling, None) => format!("ncu is profiling the program, {elapsed} s"),
            (Activity::Timing, _) => {
                format!("timing every launch (duration only), {elapsed} s")
            }
        };
    }
    let passes = seen
        .passes
        .map(|p| format!(", {p} passes each"))
        .unwrap_or_default();
    // A count past the expected total (ncu may count a kernel's launches per loaded copy
    // of it, and so profile more of them) makes the total and the time left unknown.
    let expected = expected.filter(|&n| n >= seen.launches);
    let left = left.filter(|_| expected.is_some());
    let done = match expected {
        Some(n) => format!(
            "{} profiled {} of {n} launches",
            bar(seen.launches, n),
            seen.launches
        ),
        None => format!("profiled {} launch(es)", seen.launches),
    };
    let last = seen
        .last
        .as_deref()
        .map(|n| format!(", last {}", crate::kernel::short_name(n)))
        .unwrap_or_default();
    match left {
        Some(left) => format!("{done}{passes}{last}, about {left} s left"),
        None => format!("{done}{passes}{last}, {elapsed} s"),
    }
}

/// `[######--------------]`: `done` of `total` in 20 cells.
fn bar(done: u64, total: u64) -> String {
    const CELLS: u64 = 20;
    let full = (done * CELLS)
        .checked_div(total)
        .unwrap_or(CELLS)
        .min(CELLS);
    format!(
        "[{}{}]",
        "#".repeat(full as usize),
        "-".repeat((CELLS - full) as usize)
    )
}

/// Shows on one rewritten stderr line what ncu has profiled, from its log.
pub(super) struct Progress {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
}

impl Progress {
    /// `log` is ncu's `--log-file` while it writes a report (a line per launch); without
    /// one (the timing pass, whose log is the CSV), only the time so far is shown.
    pub(super) fn start(
        activity: Activity,
        log: Option<PathBuf>,
        expected: Option<u64>,
    ) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            // When the first launch was seen done: the rate is measured from there, after
            // the program's own start-up.
            let mut first: Option<(std::time::Instant, u64)> = None;
            let mut shown = false;
            while !flag.load(Ordering::SeqCst) {
                let seen = log
                    .as_ref()
                    .map(|l| profiled_so_far(&std::fs::read_to_string(l).unwrap_or_default()))
                    .unwrap_or_default();
                if seen.launches > 0 && first.is_none() {
                    first = Some((std::time::Instant::now(), seen.launches));
                }
                let left = match (expected, first) {
                    (Some(n), Some((t, done))) if seen.launches > done => {
                        let per_launch = t.elapsed().as_secs_f64() / (seen.launches - done) as f64;
                        Some((per_launch * n.saturating_sub(seen.launches) as f64).ceil() as u64)
                    }
                    _ => None,
                };
                let elapsed = started.elapsed().as_secs();
                // Quiet for the first second: most small programs are done by then.
                if elapsed >= 1 {
                    let status = progress_line(activity, &seen, expected, elapsed, left);
                    crate::messages::to_stderr(format_args!("\r\x1b[2Kgpulint: {status}"));
                    shown = true;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            if shown {
                crate::messages::to_stderr(format_args!("\r\x1b[2K"));
            }
        });
        Progress { stop, handle }
    }

    pub(super) fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.handle.join();
    }
}
