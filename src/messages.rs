//! What gpulint says on stderr besides the report, with its `gpulint: ` prefix in one
//! place: notes (what it is doing and why: the program runs twice, the sample it took)
//! and warnings. `--quiet` silences the notes; warnings and errors always show.

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// `--quiet`: notes are not printed from here on.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Prints `gpulint: TEXT` on stderr, unless `--quiet`.
pub fn note(text: std::fmt::Arguments) {
    if !QUIET.load(Ordering::Relaxed) {
        to_stderr(format_args!("gpulint: {text}\n"));
    }
}

/// Prints `gpulint: warning: TEXT` on stderr, always.
pub fn warning(text: std::fmt::Arguments) {
    to_stderr(format_args!("gpulint: warning: {text}\n"));
}

/// Writes to stderr, and goes on when it cannot: a closed pipe (`2>&1 | head` once head
/// has exited) must cost neither the run nor its report, where `eprintln!` would panic.
pub fn to_stderr(text: std::fmt::Arguments) {
    use std::io::Write;
    let _ = std::io::stderr().write_fmt(text);
}

/// `note!("...", args)`: `note()` with `format!`'s arguments.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => { $crate::messages::note(format_args!($($arg)*)) };
}

/// `warning!("...", args)`: `warning()` with `format!`'s arguments.
#[macro_export]
macro_rules! warning {
    ($($arg:tt)*) => { $crate::messages::warning(format_args!($($arg)*)) };
}
