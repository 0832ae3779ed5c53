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
        eprintln!("gpulint: {text}");
    }
}

/// Prints `gpulint: warning: TEXT` on stderr, always.
pub fn warning(text: std::fmt::Arguments) {
    eprintln!("gpulint: warning: {text}");
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
