//! Which ncu sections give a key: for the advice on a details-page export that lacks it.

use super::{DERIVED, def};

/// ncu's section identifiers (`--section NAME`) by the name the details page shows.
pub(super) const SECTION_IDS: &[(&str, &str)] = &[
    ("GPU Speed Of Light Throughput", "SpeedOfLight"),
    ("GPU Speed Of Light", "SpeedOfLight"),
    ("Launch Statistics", "LaunchStats"),
    ("Occupancy", "Occupancy"),
    ("Memory Workload Analysis", "MemoryWorkloadAnalysis"),
    ("Warp State Statistics", "WarpStateStats"),
];

/// The ncu sections (`--section` identifiers) whose details-page labels give `key`, or
/// `None` when some of what it needs is only on the raw page (no label).
pub fn sections_giving(key: &str) -> Option<Vec<&'static str>> {
    let mut sections = Vec::new();
    let mut stack = vec![key];
    while let Some(key) = stack.pop() {
        if let Some(d) = def(key).filter(|d| !d.labels.is_empty()) {
            let shown = d.labels[0].split('/').next().unwrap_or_default();
            let id = SECTION_IDS.iter().find(|(name, _)| *name == shown)?.1;
            sections.push(id);
        } else if let Some(d) = DERIVED.iter().find(|d| d.key == key) {
            stack.extend(d.inputs.iter().copied());
        } else {
            return None;
        }
    }
    sections.sort_unstable();
    sections.dedup();
    Some(sections)
}
