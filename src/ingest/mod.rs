//! Reading ncu exports: the raw page, the details page, ncu's text output, and ncu's
//! stdout with any of them mixed into the program's own output. The form is told from the
//! content.

mod assemble;
mod chunks;
mod details;
mod fields;
mod gui;
pub mod number;
mod parse;
mod raw;
mod row;
pub mod source;
mod start;
pub mod stream;
mod text_output;
pub mod timeline;
pub mod trace;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use crate::error::{Error, Result};
use crate::metrics;
pub use stream::{Progress, ReadOptions, Source};

/// Notes that start with this are shown even without `--verbose`: the file was read, but
/// not all of it as ncu wrote it.
pub const WARNING: &str = "warning: ";

/// Which page of ncu's CSV output a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Page {
    Raw,
    Details,
    /// ncu's text output (no `--csv`).
    Text,
    /// gpulint's launch trace (see `ingest::trace`).
    Trace,
    /// The Nsight Compute GUI's Summary page, exported to CSV.
    #[serde(rename = "gui-summary")]
    GuiSummary,
    /// The Nsight Compute GUI's Raw page, exported to CSV.
    #[serde(rename = "gui-raw")]
    GuiRaw,
}

impl Page {
    /// The form as the user knows it.
    pub fn describe(self) -> &'static str {
        match self {
            Page::Raw => "raw page",
            Page::Details => "details page",
            Page::Text => "ncu's text output",
            Page::Trace => "gpulint launch trace",
            Page::GuiSummary => "Nsight Compute GUI's Summary page",
            Page::GuiRaw => "Nsight Compute GUI's Raw page",
        }
    }
}

/// A process id as exports write it: `1986` (ncu's `Process ID`) or `[540] lud` (the GUI's
/// `Process`). `None` for anything else.
pub(crate) fn parse_pid(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix('[') {
        Some(rest) => rest.split_once(']')?.0.trim().parse().ok(),
        None => text.parse().ok(),
    }
}

/// One rule result from NVIDIA's guided analysis, carried by details pages.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NvidiaRule {
    pub name: String,
    pub kind: String,
    pub estimated_speedup: Option<f64>,
}

/// One kernel launch, as one ncu `ID`; or, once folded (see `crate::fold`), every
/// launch of one kernel with the same grid and block.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub id: u64,
    pub name: String,
    pub grid: Option<[u64; 3]>,
    pub block: Option<[u64; 3]>,
    pub device: Option<String>,
    /// Line in the input file where this launch starts (1-based), for locations.
    pub line: u64,
    /// Canonical and derived metrics (see `crate::metrics`).
    pub metrics: metrics::Metrics,
    pub(crate) nvidia_rules: Vec<NvidiaRule>,
    /// How many launches this entry stands for; its metrics are their means.
    pub count: u64,
    /// Of those, how many were profiled, when the count of every launch (launch trace or
    /// timing pass) gave the entry launches the sample left out; `None` when all were.
    pub profiled: Option<u64>,
    /// The launches a sampled entry's counters speak for, where fewer than the `count` it
    /// stands for in its kernel's row (`crate::profile::sampling::reconcile`); `None`
    /// where its counters speak for all of them.
    pub counters_cover: Option<CountersCover>,
    /// The last launch folded in (`id` when there is one).
    pub last_id: u64,
    /// Lowest and highest value of each metric that varied across the folded launches.
    pub spread: BTreeMap<&'static str, [f64; 2]>,
    /// The shared object (library, or the program) whose code launched the kernel, as the
    /// launch tracer saw it; `None` in exports, which do not say.
    pub launched_from: Option<std::sync::Arc<str>>,
    /// The kernel's mangled name, as the launch tracer recorded it: what ncu's
    /// `--kernel-id` matches exactly with `--kernel-name-base mangled`. `None` in exports.
    pub mangled: Option<std::sync::Arc<str>>,
    /// The CUDA device it ran on, by ordinal, as the launch tracer recorded it: each rank
    /// of a multi-GPU job has its own, unless its launcher showed each rank one GPU, its
    /// device 0. `None` in exports.
    pub device_ordinal: Option<u64>,
    /// The processes that launched it, sorted: one for a launch, several for an entry
    /// folded from several ranks' launches of the kernel. From the launch tracer's blocks,
    /// or an export's `Process ID` (no rank there); empty where the input does not say.
    pub processes: Vec<Process>,
    /// A traced launch that ran instrumented (`--source`'s SASS counters) or replayed
    /// (`--one-run`'s counters): its traced duration is not its own but a like launch's,
    /// or includes the counting where it has none, and the profiled measure of it
    /// replaces it once it is paired. False elsewhere.
    pub timed_instrumented: bool,
    /// The launch call's correlation id, as the launch tracer recorded it (one series per
    /// process): what the tracer's rows of counters name their launch by. `None` in
    /// exports.
    pub correlation: Option<u64>,
}

/// The launches a sampled entry's counters speak for, and their GPU time: what the
/// findings its counters inform put at stake.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountersCover {
    pub launches: u64,
    /// Their summed duration; `None` where one of them had none.
    pub time_ns: Option<f64>,
}

/// A process that launched kernels, by its pid, and by its rank in a job of several where
/// the launch tracer found the number its launcher gave it (exports do not say). Ordered by
/// rank, then pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Process {
    /// Its rank, as torchrun (`RANK`), MPI or Slurm set it.
    pub rank: Option<u64>,
    pub pid: u64,
}

/// Adds `more` to the sorted list of processes `into`, each once.
pub fn add_processes(into: &mut Vec<Process>, more: &[Process]) {
    for p in more {
        if let Err(at) = into.binary_search(p) {
            into.insert(at, *p);
        }
    }
}

impl std::fmt::Display for Process {
    /// `rank 1`, or `process 4910` where the launcher set no rank.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rank {
            Some(rank) => write!(f, "rank {rank}"),
            None => write!(f, "process {}", self.pid),
        }
    }
}

impl Launch {
    /// Its GPU time: its mean duration times the launches it stands for (`count`); none
    /// without a duration.
    pub fn time_ns(&self) -> Option<f64> {
        Some(self.metrics.get("duration_ns")? * self.count as f64)
    }

    /// Makes the text a profile gave this launch safe to print (see `crate::printable`).
    pub fn make_printable(&mut self) {
        use crate::printable::make_printable;
        make_printable(&mut self.name);
        if let Some(d) = &mut self.device {
            make_printable(d);
        }
        for r in &mut self.nvidia_rules {
            make_printable(&mut r.name);
            make_printable(&mut r.kind);
        }
        if let Some(from) = &self.launched_from
            && let std::borrow::Cow::Owned(clean) = crate::printable::printable(from)
        {
            self.launched_from = Some(clean.into());
        }
    }

    /// One launch of `name` known only by its shape: no metrics yet, at `line`.
    pub fn of_shape(id: u64, name: String, grid: [u64; 3], block: [u64; 3], line: u64) -> Launch {
        Launch {
            id,
            name,
            grid: Some(grid),
            block: Some(block),
            device: None,
            line,
            metrics: Default::default(),
            nvidia_rules: Vec::new(),
            count: 1,
            profiled: None,
            counters_cover: None,
            last_id: id,
            spread: Default::default(),
            launched_from: None,
            mangled: None,
            device_ordinal: None,
            processes: Vec::new(),
            timed_instrumented: false,
            correlation: None,
        }
    }
}

/// A parsed export.
#[derive(Debug, Clone)]
pub struct Profile {
    pub file: String,
    pub page: Page,
    pub launches: Vec<Launch>,
    /// Things worth telling the user with `--verbose` (skipped lines, guessed units);
    /// those starting with `WARNING` are always shown.
    pub notes: Vec<String>,
    /// Per-source-line sectors from ncu's source page, when given (`--source`).
    pub(crate) source_blocks: Vec<source::SourceBlock>,
}

impl Profile {
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().filter_map(|n| n.strip_prefix(WARNING))
    }

    /// Launches in the export, counting every launch a folded entry stands for.
    pub fn launch_count(&self) -> u64 {
        self.launches.iter().map(|l| l.count).sum()
    }

    /// A launch trace of these launches and nothing else, as the tests build one.
    #[cfg(test)]
    pub fn of_trace(launches: Vec<Launch>) -> Profile {
        Profile {
            file: "trace".into(),
            page: Page::Trace,
            launches,
            notes: Vec::new(),
            source_blocks: Vec::new(),
        }
    }

    /// Distinct kernel configurations (name, grid and block): the entries once folded,
    /// fewer than the entries with `--per-launch`.
    pub fn configurations(&self) -> usize {
        self.launches
            .iter()
            .map(|l| (&l.name, l.grid, l.block))
            .collect::<HashSet<_>>()
            .len()
    }
}

/// Reads a file (or `-` for stdin), handing each launch to `sink` as it is read.
pub fn stream_path(
    path: &str,
    opts: &ReadOptions,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    let name = if path == "-" { "<stdin>" } else { path };
    stream_named(path, name, opts, sink)
}

/// As [`stream_path`], naming the input `name` in errors and notes.
pub fn stream_named(
    path: &str,
    name: &str,
    opts: &ReadOptions,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<Source> {
    if path == "-" {
        return stream::read(name, std::io::stdin(), None, opts, sink);
    }
    let file =
        std::fs::File::open(path).map_err(|e| Error::in_file(name, format!("cannot read: {e}")))?;
    let size = file.metadata().ok().map(|m| m.len());
    stream::read(name, file, size, opts, sink)
}

/// Reads a file (or `-` for stdin) and keeps every launch.
pub fn read_path(path: &str) -> Result<Profile> {
    let name = if path == "-" { "<stdin>" } else { path };
    read_named(path, name, &ReadOptions::default())
}

/// As [`read_path`], naming the input `name` in errors and notes, with `opts`.
pub fn read_named(path: &str, name: &str, opts: &ReadOptions) -> Result<Profile> {
    collect(name, |sink| stream_named(path, name, opts, sink))
}

/// Parses the bytes of an export, keeping every launch.
pub fn parse_bytes(file: &str, bytes: &[u8]) -> Result<Profile> {
    collect(file, |sink| {
        stream::read(
            file,
            bytes,
            Some(bytes.len() as u64),
            &ReadOptions::default(),
            sink,
        )
    })
}

fn collect(
    file: &str,
    read: impl FnOnce(&mut dyn FnMut(Launch) -> Result<()>) -> Result<Source>,
) -> Result<Profile> {
    let mut launches = Vec::new();
    let source = read(&mut |l| {
        launches.push(l);
        Ok(())
    })?;
    Ok(Profile {
        file: file.to_string(),
        page: source.page,
        launches,
        notes: source.notes,
        source_blocks: Vec::new(),
    })
}

/// A CSV field as text; bytes that are not UTF-8 become U+FFFD.
fn text(field: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(field)
}

pub use crate::kernel::base_name;

/// The `ID` cell of a row: ncu's launch number, possibly with a thousands separator.
fn parse_launch_id(file: &str, line: u64, column: usize, text: &str) -> Result<u64> {
    text.replace([',', '.'], "").parse::<u64>().map_err(|_| {
        Error::at(
            file,
            line,
            Some(column as u64 + 1),
            format!("field `ID` is {text:?}, expected a launch number"),
        )
    })
}

/// Reads "(256, 1, 1)" as [256, 1, 1], and the GUI's "  256,    1,    1" too.
pub(crate) fn parse_dim3(s: &str) -> Option<[u64; 3]> {
    let s = s.trim();
    let inner = match s.strip_prefix('(') {
        Some(rest) => rest.strip_suffix(')')?,
        None => s,
    };
    let mut parts = inner
        .split(',')
        .map(|p| p.trim().replace(['.', '\''], "").parse::<u64>());
    let d = [
        parts.next()?.ok()?,
        parts.next()?.ok()?,
        parts.next()?.ok()?,
    ];
    // CUDA's limits on a grid bound a block too: past them the cell is no launch's, and
    // the product of its sides could overflow.
    let within = d.iter().zip(MOST_GRID_BLOCKS).all(|(v, most)| *v <= most);
    (parts.next().is_none() && within).then_some(d)
}

/// CUDA's limits on a grid's sides (x under 2^31, y and z under 65,536): a launch's shape
/// never passes them, and within them the product of the sides fits a u64.
pub(crate) const MOST_GRID_BLOCKS: [u64; 3] = [(1 << 31) - 1, 65_535, 65_535];

/// Why no measurement can have value `v` in cell `name`, or `None` when it can. Every
/// metric gpulint reads is a duration, a count, a size, a ratio or a percentage: none is
/// negative, none is infinite, and none is as large as a day of kernel time or 10^18
/// sectors. A percentage past 1,000 is no throughput either (ncu's stay near 100).
fn impossible(name: &str, v: f64) -> Option<&'static str> {
    if !v.is_finite() {
        Some("not a finite number")
    } else if v < 0.0 {
        Some("negative, which no duration, count or percentage can be")
    } else if name.contains("duration") && v > 86_400e9 {
        Some("more than a day of kernel time")
    } else if name.contains("pct") && v > 1_000.0 {
        Some("a percentage over 1,000")
    } else if v > 1e18 {
        Some("larger than any count a kernel can make")
    } else {
        None
    }
}

/// Leaves impossible cells out, as if not measured (a rule that needs one skips and
/// `--verbose` says so), with a warning naming the row, the field and the value: an
/// impossible number must never rank findings or fill totals.
fn drop_impossible(p: &mut stream::Parsed, warnings: &mut Vec<String>) {
    p.values
        .retain(|(source, v)| match impossible(source.name, *v) {
            None => true,
            Some(why) => {
                warnings.push(format!(
                    "line {}: `{}` of {} is {v}: {why}; left out, as if not measured",
                    p.line,
                    source.name,
                    crate::printable::printable(&p.name)
                ));
                false
            }
        });
}

/// A launch, its cells converted, with its metrics resolved; impossible cells are left
/// out with a warning in `warnings`.
pub(crate) fn finish_launch(mut p: stream::Parsed, warnings: &mut Vec<String>) -> Launch {
    drop_impossible(&mut p, warnings);
    // The Grid Size and Block Size columns are always there; they stand in for the
    // launch__ metrics when an export lacks them (the export's own come first and win).
    static SHAPE: std::sync::OnceLock<[metrics::SourceName; 3]> = std::sync::OnceLock::new();
    let [block_size, block_dim_x, grid_size] = *SHAPE.get_or_init(|| {
        [
            "launch__block_size",
            "launch__block_dim_x",
            "launch__grid_size",
        ]
        .map(metrics::SourceName::of)
    });
    if let Some(b) = p.block {
        p.values.push((block_size, (b[0] * b[1] * b[2]) as f64));
        p.values.push((block_dim_x, b[0] as f64));
    }
    if let Some(g) = p.grid {
        p.values.push((grid_size, (g[0] * g[1] * g[2]) as f64));
    }
    Launch {
        id: p.id,
        name: p.name,
        grid: p.grid,
        block: p.block,
        device: p.device,
        line: p.line,
        metrics: metrics::resolve_sources(&p.values),
        nvidia_rules: p.nvidia_rules,
        count: p.invocations.unwrap_or(1).max(1),
        profiled: None,
        counters_cover: None,
        last_id: p.id,
        spread: BTreeMap::new(),
        launched_from: None,
        mangled: None,
        device_ordinal: None,
        processes: (p.process.into_iter())
            .map(|pid| Process { rank: None, pid })
            .collect(),
        timed_instrumented: false,
        correlation: None,
    }
}

/// The metric names and labels worth keeping from an export.
fn wanted_keys() -> HashSet<&'static str> {
    let mut set: HashSet<&'static str> = metrics::source_names().collect();
    set.extend(
        metrics::METRICS
            .iter()
            .flat_map(|m| m.labels.iter().copied()),
    );
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At and around each bound.
    #[test]
    fn impossible_values() {
        let d = "gpu__time_duration.sum";
        assert_eq!(impossible(d, 0.0), None);
        assert_eq!(impossible(d, 86_400e9), None);
        assert!(impossible(d, 86_400e9 * 1.001).is_some());
        assert!(impossible(d, -0.5).is_some());
        assert!(impossible(d, f64::NAN).is_some());
        let pct = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
        assert_eq!(impossible(pct, 100.4), None);
        assert_eq!(impossible(pct, 1_000.0), None);
        assert!(impossible(pct, 1_000.1).is_some());
        let count = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
        assert_eq!(impossible(count, 1e18), None);
        assert!(impossible(count, 1.1e18).is_some());
    }

    #[test]
    fn dim3() {
        assert_eq!(parse_dim3("(256, 1, 1)"), Some([256, 1, 1]));
        assert_eq!(parse_dim3("(256, 1)"), None);
        assert_eq!(parse_dim3("   15,   15,    1"), Some([15, 15, 1]));
        assert_eq!(parse_dim3("(15, 15, 1"), None);
        assert_eq!(parse_dim3("256"), None);
        assert_eq!(
            parse_dim3("(2147483647, 65535, 65535)"),
            Some([2_147_483_647, 65_535, 65_535])
        );
        assert_eq!(parse_dim3("(4294967296, 4294967296, 1)"), None);
        assert_eq!(parse_dim3("(1, 1, 65536)"), None);
    }

    /// ncu writes the pid alone, the GUI's pages `[pid] name`; anything else names none.
    #[test]
    fn process_ids_as_exports_write_them() {
        assert_eq!(parse_pid(" 1986 "), Some(1986));
        assert_eq!(parse_pid("[540] lud"), Some(540));
        for text in ["", "lud", "[x] lud", "[540 lud", "-3"] {
            assert_eq!(parse_pid(text), None, "{text}");
        }
        // The GUI's raw page and ncu's, exported from one report, name its one process.
        for file in ["h200-gui/lud_raw.csv", "h200-gui/lud_cli_raw.csv"] {
            let path = format!("{}/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
            let profile = read_path(&path).unwrap();
            let pids: std::collections::BTreeSet<u64> = (profile.launches.iter())
                .flat_map(|l| l.processes.iter().map(|p| p.pid))
                .collect();
            assert_eq!(pids, [540].into(), "{file}");
        }
    }

    #[test]
    fn ncu_report_is_named() {
        let err = parse_bytes("x.ncu-rep", b"NVR\0\x02\0\0\0").unwrap_err();
        assert!(err.message.contains("ncu --import"), "{err}");
    }

    #[test]
    fn header_is_found_after_program_output() {
        let p = parse_bytes(
            "f",
            "\u{feff}hello\n==PROF== x\n\"ID\",\"Process ID\",\"Kernel Name\"\r\n\"0\",\"1\",\"k\"\r\n==PROF== y\n\n\"1\",\"1\",\"k2\"\n".as_bytes(),
        )
        .unwrap();
        let lines: Vec<u64> = p.launches.iter().map(|l| l.line).collect();
        assert_eq!(lines, vec![4, 7]);
        assert!(
            p.notes.iter().any(|n| n.contains("skipped 3 line(s)")),
            "{:?}",
            p.notes
        );
    }
}
