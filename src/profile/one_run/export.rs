//! The tracer's counters as the export a profiled run leaves: ncu's raw page, each
//! profiled launch's shape from the trace, its counters from the tracer's row, and the
//! device's attributes.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use super::CountedInRun;
use super::counters_file::{Block, blocks};
use crate::ingest;
use crate::profile::sample::Sample;

/// The tracer's counters as a profiled run: the export written to a temporary file, the
/// sample of the launches they stand for (their numbers in the trace), how many, and
/// where a process's profiling stopped early.
pub struct Export {
    pub csv: tempfile::NamedTempFile,
    pub sample: Sample,
    pub launches: usize,
    /// Where a process's profiling stopped early: which process, and the step that failed.
    pub stopped: Vec<String>,
    /// The seconds the tracer's ranges took, over every process, where each said.
    pub profiling_seconds: Option<f64>,
    /// The kernels whose first launch came once the profiling budget was spent and that
    /// no range took later, over every process, where each said.
    pub left_by_budget: Option<u64>,
}

impl Export {
    /// What the stage line says where the profiling budget left kernels unprofiled: how
    /// many, and how to profile them.
    pub fn budget_note(&self) -> Option<String> {
        let left = self.left_by_budget.filter(|n| *n > 0)?;
        Some(format!(
            "the tracer's profiling budget was spent before the first launch of {left} \
             kernel(s), and no later launch of them was profiled: the report lists them as \
             not profiled, and --two-runs has ncu profile them"
        ))
    }
}

/// Writes the export of `counted` for the launches of `trace` it names. `Err` says why it
/// cannot stand for ncu's run (no launch profiled, a file that does not read, a launch
/// the trace lacks); ncu then profiles the sample as it would have.
pub fn export(trace: &ingest::Profile, counted: &CountedInRun) -> Result<Export, String> {
    let blocks = blocks(&counted.text).map_err(|e| format!("the counters file, {e}"))?;
    let stopped: Vec<String> = (blocks.iter())
        .filter_map(|b| Some(format!("process {}: {}", b.pid, b.stopped.as_ref()?)))
        .collect();
    let wanted: HashMap<(u64, u64), RowAt> = (blocks.iter().enumerate())
        .flat_map(|(b, block)| {
            (block.rows.iter().enumerate()).map(move |(r, (c, _))| ((block.pid, *c), (b, r)))
        })
        .collect();
    if wanted.is_empty() {
        let why = stopped
            .first()
            .map_or("no launch was profiled".into(), |s| {
                format!("no launch was profiled ({s})")
            });
        return Err(why);
    }
    let found = profiled_launches(trace, &wanted)?;
    let csv = write_export(&blocks, &found)?;
    let profiling_ms: Option<u64> = blocks.iter().map(|b| b.profiling_ms).sum();
    Ok(Export {
        csv,
        sample: Sample::Traced(found.keys().copied().collect()),
        launches: found.len(),
        stopped,
        profiling_seconds: profiling_ms.map(|ms| ms as f64 / 1000.0),
        left_by_budget: blocks.iter().map(|b| b.left_by_budget).sum(),
    })
}

/// Where a profiled launch's row is: its process's block, and the row in it.
type RowAt = (usize, usize);

/// The launches of `trace` the counters' rows name (`wanted`, by process and correlation
/// id), by their number in the program, each with its row; `Err` where one is not in the
/// trace.
fn profiled_launches<'a>(
    trace: &'a ingest::Profile,
    wanted: &HashMap<(u64, u64), RowAt>,
) -> Result<BTreeMap<u64, (&'a ingest::Launch, RowAt)>, String> {
    let mut found: BTreeMap<u64, (&ingest::Launch, RowAt)> = BTreeMap::new();
    for l in &trace.launches {
        let (Some(c), Some(p)) = (l.correlation, l.processes.first()) else {
            continue;
        };
        if let Some(&at) = wanted.get(&(p.pid, c)) {
            // A CUDA graph's kernels share their launch call's id, but the tracer profiles
            // no graph launch: the first launch with the id is the one.
            found.entry(l.id).or_insert((l, at));
        }
    }
    let mut seen_rows = std::collections::HashSet::new();
    found.retain(|_, (_, at)| seen_rows.insert(*at));
    if found.len() < wanted.len() {
        return Err(format!(
            "{} of the {} launches profiled in the traced run are not in its trace",
            wanted.len() - found.len(),
            wanted.len()
        ));
    }
    Ok(found)
}

/// The export of the `found` launches with their rows of `blocks`: ncu's raw page, in
/// program order, to a temporary file.
fn write_export(
    blocks: &[Block],
    found: &BTreeMap<u64, (&ingest::Launch, RowAt)>,
) -> Result<tempfile::NamedTempFile, String> {
    let mut columns: Vec<&str> = Vec::new();
    for block in blocks {
        for c in &block.columns {
            if !columns.contains(&c.as_str()) {
                columns.push(c);
            }
        }
    }
    let csv = crate::profile::ncu::temp_csv("gpulint-one-run-").map_err(|e| e.to_string())?;
    let mut writer = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(std::io::BufWriter::new(csv.as_file()));
    let header: Vec<&str> = LAUNCH_COLUMNS
        .iter()
        .copied()
        .chain(columns.iter().copied())
        .collect();
    let write_error = |e: csv::Error| format!("writing the traced run's export: {e}");
    writer.write_record(&header).map_err(write_error)?;
    // No units: CUPTI's values are in the base units (bytes, nanoseconds, per second).
    writer
        .write_record(header.iter().map(|_| ""))
        .map_err(write_error)?;
    for (n, (l, (b, r))) in found.values().enumerate() {
        let block = &blocks[*b];
        let values: HashMap<&str, &str> = (block.columns.iter().map(String::as_str))
            .zip(block.rows[*r].1.iter().map(|v| finite_or_absent(v)))
            .collect();
        let mut record: Vec<String> = launch_columns(n, l, block, &values).to_vec();
        record.extend(
            columns
                .iter()
                .map(|c| values.get(c).unwrap_or(&"").to_string()),
        );
        writer.write_record(&record).map_err(write_error)?;
    }
    let mut file = writer
        .into_inner()
        .map_err(|e| format!("writing the traced run's export: {e}"))?;
    file.flush()
        .map_err(|e| format!("writing the traced run's export: {e}"))?;
    drop(file);
    Ok(csv)
}

/// A value the tracer printed, or nothing where CUPTI gave no number (`nan` of a ratio with
/// nothing under it, `inf`): a missing metric skips its rule, never reads as zero. Text
/// (the device's name) stays.
fn finite_or_absent(value: &str) -> &str {
    match value.trim().parse::<f64>() {
        Ok(v) if !v.is_finite() => "",
        _ => value,
    }
}

/// The columns ncu's raw page gives every launch that the trace and the counters file
/// give here.
const LAUNCH_COLUMNS: [&str; 16] = [
    "ID",
    "Process ID",
    "Kernel Name",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "launch__block_size",
    "launch__grid_size",
    "launch__thread_count",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_static",
    "launch__sm_count",
    "profiler__replayer_passes",
    "device__attribute_num_schedulers_per_multiprocessor",
];

/// Warp schedulers an SM has (its sub-partitions, ncu's `smsp`): 4 on every chip of
/// compute capability 7.0 on, the oldest ncu 2025 profiles being Turing's (7.5). The driver
/// has no attribute for it, and the occupancy limits need it (the register file is split
/// among the schedulers): without it register- and shared-memory-limited occupancy skip.
fn schedulers_per_sm(cc_major: Option<&&str>) -> String {
    match cc_major.and_then(|m| m.parse::<u32>().ok()) {
        Some(major) if major >= 7 => "4".into(),
        _ => String::new(),
    }
}

/// Launch `l`'s cells of [`LAUNCH_COLUMNS`], the `n`th of the export, as ncu writes them;
/// the device's from its attributes in the tracer's row (`values`).
fn launch_columns(
    n: usize,
    l: &ingest::Launch,
    block: &Block,
    values: &HashMap<&str, &str>,
) -> [String; 16] {
    let [gx, gy, gz] = l.grid.unwrap_or([0; 3]);
    let [bx, by, bz] = l.block.unwrap_or([0; 3]);
    let attribute = |name: &str| values.get(name).map_or(String::new(), |v| v.to_string());
    let cc = match (
        values.get("device__attribute_compute_capability_major"),
        values.get("device__attribute_compute_capability_minor"),
    ) {
        (Some(major), Some(minor)) => format!("{major}.{minor}"),
        _ => String::new(),
    };
    let metric = |key: &str| l.metrics.get(key).map_or(String::new(), |v| format!("{v}"));
    [
        n.to_string(),
        block.pid.to_string(),
        l.name.clone(),
        format!("({bx}, {by}, {bz})"),
        format!("({gx}, {gy}, {gz})"),
        attribute("device__attribute_display_name"),
        cc,
        (bx * by * bz).to_string(),
        (gx * gy * gz).to_string(),
        (bx * by * bz * gx * gy * gz).to_string(),
        metric("registers_per_thread"),
        // The trace records static and dynamic shared memory together.
        metric("shared_mem_per_block"),
        "0".into(),
        attribute("device__attribute_multiprocessor_count"),
        block.passes.to_string(),
        schedulers_per_sm(values.get("device__attribute_compute_capability_major")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::one_run::COUNTERS;

    fn traced(id: u64, correlation: u64, pid: u64) -> ingest::Launch {
        let mut l =
            ingest::Launch::of_shape(id, format!("k{id}(float*)"), [64, 2, 1], [256, 1, 1], 1);
        l.correlation = Some(correlation);
        l.processes = vec![ingest::Process { rank: None, pid }];
        l.metrics.insert("registers_per_thread", 32.0);
        l.metrics.insert("shared_mem_per_block", 1024.0);
        l
    }

    /// The export holds the profiled launches in program order under ncu's columns, the
    /// shape from the trace and the counters from the tracer's rows; the sample names them
    /// by their number in the trace, and gpulint reads the export back as a raw page.
    #[test]
    fn the_profiled_launches_become_an_export_gpulint_reads() {
        let trace = ingest::Profile::of_trace(vec![
            traced(0, 3, 812),
            traced(1, 5, 812),
            traced(2, 9, 999), // another process's launch 9
            traced(3, 9, 812),
        ]);
        let counted = CountedInRun {
            text: COUNTERS.into(),
            program_end: crate::profile::sample::ProgramEnd::Exited(0),
        };
        let export = export(&trace, &counted).unwrap();
        assert_eq!(export.sample, Sample::Traced(vec![1, 3]));
        assert_eq!(
            export.stopped,
            ["process 812: cuptiRangeProfilerStart returned 7"]
        );
        let path = export.csv.path().display().to_string();
        let profile =
            ingest::read_named(&path, "one run", &ingest::ReadOptions::default()).unwrap();
        let names: Vec<&str> = profile.launches.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["k1(float*)", "k3(float*)"]);
        let first = &profile.launches[0];
        assert_eq!(first.grid, Some([64, 2, 1]));
        assert_eq!(first.metrics.get("registers_per_thread"), Some(&32.0));
        assert_eq!(first.metrics.get("sm_count"), Some(&132.0));
        assert_eq!(first.device.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(first.metrics.get("dram_bytes_read"), Some(&1053696.0));
        // nan is no value: the rule that reads it is skipped.
        assert_eq!(first.metrics.get("bytes_per_sector_ld"), None);
        assert_eq!(
            profile.launches[1].metrics.get("bytes_per_sector_ld"),
            Some(&32.0)
        );
    }

    /// Where the budget left kernels unprofiled (the count over every process), the stage
    /// line says how many and names --two-runs; where it left none, or the tracer did not
    /// count, nothing.
    #[test]
    fn the_kernels_the_budget_left_are_counted_and_said() {
        let trace = ingest::Profile::of_trace(vec![traced(0, 5, 812), traced(1, 9, 812)]);
        let with = |header_end: &str| {
            let text = COUNTERS.replace("launches 2\n", &format!("launches 2{header_end}\n"));
            let counted = CountedInRun {
                text,
                program_end: crate::profile::sample::ProgramEnd::Exited(0),
            };
            export(&trace, &counted).unwrap()
        };
        let left = with(", kernels the budget left 3");
        assert_eq!(left.left_by_budget, Some(3));
        let note = left.budget_note().unwrap();
        assert!(
            note.contains("before the first launch of 3 kernel(s)") && note.contains("--two-runs"),
            "{note}"
        );
        assert_eq!(with(", kernels the budget left 0").budget_note(), None);
        assert_eq!(with("").left_by_budget, None);
        assert_eq!(with("").budget_note(), None);
    }

    /// With the device's attributes the tracer writes (the H100's, as call 1 of
    /// lab/runs/2026-12-05-one-run-gpulint.txt read them), the export adds the SM's 4 warp
    /// schedulers, which the driver does not give, and the occupancy limits follow as ncu
    /// computes them: a block of 256 threads of 32 registers and 1 KiB of shared memory is
    /// held 8 times by an SM's 64 warps and by its registers, 114 times by its 233,472
    /// bytes of shared memory (1 KiB and the 1 KiB reserved a block).
    #[test]
    fn the_export_gives_the_occupancy_limits_their_inputs() {
        let attributes = [
            ("compute_capability_major", "9"),
            ("compute_capability_minor", "0"),
            ("multiprocessor_count", "132"),
            ("max_blocks_per_multiprocessor", "32"),
            ("max_registers_per_block", "65536"),
            ("max_registers_per_multiprocessor", "65536"),
            ("max_shared_memory_per_multiprocessor", "233472"),
            ("reserved_shared_memory_per_block", "1024"),
            ("max_warps_per_multiprocessor", "64"),
        ];
        let names: Vec<String> = (attributes.iter())
            .map(|(n, _)| format!("device__attribute_{n}"))
            .collect();
        let values: Vec<String> = attributes.iter().map(|(_, v)| format!("\"{v}\"")).collect();
        let text = format!(
            "# gpulint counters 1, process 812, passes 7, profiled launches 1\n\
             correlation,dram__bytes_read.sum,{}\n5,1053696,{}\n",
            names.join(","),
            values.join(",")
        );
        let counted = CountedInRun {
            text,
            program_end: crate::profile::sample::ProgramEnd::Exited(0),
        };
        let export = export(
            &ingest::Profile::of_trace(vec![traced(0, 5, 812)]),
            &counted,
        )
        .unwrap();
        let path = export.csv.path().display().to_string();
        let profile =
            ingest::read_named(&path, "one run", &ingest::ReadOptions::default()).unwrap();
        let m = &profile.launches[0].metrics;
        assert_eq!(m.get("schedulers_per_sm"), Some(&4.0));
        assert_eq!(m.get("limit_warps"), Some(&8.0));
        assert_eq!(m.get("limit_registers"), Some(&8.0));
        assert_eq!(m.get("limit_shared_mem"), Some(&114.0));
        assert_eq!(m.get("theoretical_occupancy_pct"), Some(&100.0));
    }

    #[test]
    fn counters_the_trace_does_not_hold_or_none_at_all_are_refused() {
        let counted = CountedInRun {
            text: COUNTERS.into(),
            program_end: crate::profile::sample::ProgramEnd::Exited(0),
        };
        let missing = export(
            &ingest::Profile::of_trace(vec![traced(0, 5, 812)]),
            &counted,
        )
        .err()
        .unwrap();
        assert!(missing.starts_with("1 of the 2 launches"), "{missing}");
        let none = CountedInRun {
            text: "# gpulint counters 1, process 812, passes 0, profiled launches 0\n\
                   correlation,dram__bytes_read.sum\n\
                   # stopped: cuptiProfilerHostConfigAddMetrics returned 1\n"
                .into(),
            program_end: crate::profile::sample::ProgramEnd::Exited(0),
        };
        let why = export(&ingest::Profile::of_trace(vec![traced(0, 5, 812)]), &none)
            .err()
            .unwrap();
        assert!(why.contains("cuptiProfilerHostConfigAddMetrics"), "{why}");
    }
}
