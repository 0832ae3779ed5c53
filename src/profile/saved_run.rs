//! What `gpulint run --save-csv FILE` keeps beside the export so that `gpulint check FILE`
//! gives the run's own report: the launch trace (every launch's shape, duration, the object
//! that launched it, and the timeline's waits) and which launches the sample profiled. An
//! export alone lacks both: its kernels' origins, their shares of every launch's time, and
//! the launch-shape and launch-timeline rules judged on every launch.
//!
//! `STEM.csv` gets `STEM.trace.csv` and `STEM.gpulint.json`, a small record:
//! `{"format": 1, "launch_trace": "STEM.trace.csv", "sample": "spread:6,0,...",
//! "kernel_filter": false}`, the trace named relative to the record.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::profile::sample::Sample;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedRun {
    pub format: u32,
    /// The launch trace's file: a name beside the record, or an absolute path where
    /// `--save-trace` put it elsewhere.
    pub launch_trace: String,
    /// The sample ncu profiled ([`Sample::token`]).
    pub sample: String,
    /// Whether `-k` chose the kernels (only theirs were counted).
    pub kernel_filter: bool,
}

/// `STEM.trace.csv` and `STEM.gpulint.json` beside `STEM.csv` (or beside `FILE` of any
/// other name).
pub fn sidecars(csv: &str) -> (String, String) {
    let stem = csv.strip_suffix(".csv").unwrap_or(csv);
    (format!("{stem}.trace.csv"), format!("{stem}.gpulint.json"))
}

/// Writes the record beside the export. The trace is `saved_trace` where `--save-trace`
/// put it elsewhere, else the one beside the export: named by its file name when it is in
/// the record's folder, else by its absolute path, so that `check` finds it either way.
pub fn write(
    csv: &str,
    saved_trace: Option<&str>,
    sample: &Sample,
    kernel_filter: bool,
) -> Result<()> {
    let (beside, record) = sidecars(csv);
    let trace = saved_trace.unwrap_or(&beside);
    let folder = |p: &str| {
        std::path::absolute(p)
            .ok()
            .and_then(|a| a.parent().map(std::path::Path::to_path_buf))
    };
    let launch_trace = match std::path::Path::new(trace).file_name() {
        Some(name) if folder(trace) == folder(&record) => name.to_string_lossy().into_owned(),
        _ => std::path::absolute(trace)
            .map_or(trace.to_string(), |a| a.to_string_lossy().into_owned()),
    };
    let saved = SavedRun {
        format: 1,
        launch_trace,
        sample: sample.token(),
        kernel_filter,
    };
    let text = serde_json::to_string_pretty(&saved).expect("plain data") + "\n";
    crate::atomic_file::write(std::path::Path::new(&record), text.as_bytes())
}

/// The record beside `csv`, when `gpulint run` left one: the trace's path, the sample and
/// the kernel filter. An unreadable record is an error naming it, not a silent export.
pub fn read(csv: &str) -> Result<Option<(String, Sample, bool)>> {
    let (_, record) = sidecars(csv);
    if record == csv || !std::path::Path::new(&record).is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&record)
        .map_err(|e| Error::in_file(&record, format!("cannot read: {e}")))?;
    let saved: SavedRun = serde_json::from_str(&text).map_err(|e| {
        Error::at(
            &record,
            e.line() as u64,
            Some(e.column() as u64),
            format!("not the record of a gpulint run: {e}"),
        )
    })?;
    let sample = Sample::from_token(&saved.sample).ok_or_else(|| {
        Error::in_file(
            &record,
            format!(
                "field `sample` is {:?}, not a sample gpulint knows",
                saved.sample
            ),
        )
    })?;
    let dir = std::path::Path::new(&record)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let trace = dir.join(&saved.launch_trace).display().to_string();
    Ok(Some((trace, sample, saved.kernel_filter)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecars_sit_beside_the_export() {
        assert_eq!(
            sidecars("out/candidate.csv"),
            (
                "out/candidate.trace.csv".into(),
                "out/candidate.gpulint.json".into()
            )
        );
        assert_eq!(sidecars("profile").0, "profile.trace.csv");
    }
}
