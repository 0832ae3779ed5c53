//! The catalogue: every canonical key with its ncu names and details-page labels (a file
//! for each job the keys serve, joined in order at compile time), and the stall reasons
//! gpulint collects.

/// Where a canonical metric can come from.
pub struct Source {
    /// The ncu metric name, as a raw-page column or a details-page `Metric Name`.
    pub name: &'static str,
    /// When set, the value is a per-cycle rate and is multiplied by this metric (the
    /// elapsed cycles) to give a count.
    pub times: Option<&'static str>,
}

pub(super) const fn n(name: &'static str) -> Source {
    Source { name, times: None }
}

pub(super) const fn per_cycle(name: &'static str, cycles: &'static str) -> Source {
    Source {
        name,
        times: Some(cycles),
    }
}

#[derive(Clone, Copy)]
pub struct MetricDef {
    pub key: &'static str,
    pub doc: &'static str,
    pub sources: &'static [Source],
    /// Details-page labels as `Section Name/Label`.
    pub labels: &'static [&'static str],
}

macro_rules! metric {
    ($key:literal, $doc:literal, [$($src:expr),* $(,)?], [$($label:literal),* $(,)?]) => {
        MetricDef { key: $key, doc: $doc, sources: &[$($src),*], labels: &[$($label),*] }
    };
}

// The table by job, in its order (the macro above serves them all).
mod busy;
mod instructions;
mod issue;
mod launch;
mod memory;
mod peaks;

/// Every metric gpulint reads, by job. The order is the order of the JSON `metrics` object.
pub static METRICS: &[MetricDef] = &ALL;

const PARTS: [&[MetricDef]; 6] = [
    launch::LAUNCH,
    busy::BUSY,
    issue::ISSUE,
    memory::MEMORY,
    instructions::INSTRUCTIONS,
    peaks::PEAKS,
];

const COUNT: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < PARTS.len() {
        count += PARTS[i].len();
        i += 1;
    }
    count
};

/// The parts one after another, at compile time.
const ALL: [MetricDef; COUNT] = {
    let mut all = [PARTS[0][0]; COUNT];
    let (mut at, mut part) = (0, 0);
    while part < PARTS.len() {
        let mut i = 0;
        while i < PARTS[part].len() {
            all[at] = PARTS[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    all
};

/// The stall reasons gpulint collects: the ones that cost no replay pass beyond the
/// rest of its list on an H200 (lab/runs/2026-11-30-corpus-measure.txt).
pub const STALL_KEYS: [&str; 9] = [
    "stall_long_scoreboard",
    "stall_barrier",
    "stall_short_scoreboard",
    "stall_mio_throttle",
    "stall_math_pipe_throttle",
    "stall_no_instruction",
    "stall_not_selected",
    "stall_selected",
    "stall_wait",
];
