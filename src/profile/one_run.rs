//! One run of the program (`gpulint run --one-run`, #58): the launch tracer reads the
//! rules' counters itself, with CUPTI's range profiler, on the launches it picks as they
//! come (launch_tracer_counters.inc), and ncu does not run the program again. Its rows
//! become the export a profiled run leaves (ncu's raw page: the launch's shape from the
//! trace, its counters in CUPTI's base units, the device's attributes), so that the rest
//! of the stage reads, pairs and judges them as it does ncu's sample. On an H100 the
//! range profiler took 0.10-0.16 s a profiled launch where ncu took 0.375 s and a second
//! run, and gave the same findings on 33 of 35 (lab/runs/2026-12-05-range-profiler.txt).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use crate::ingest;
use crate::profile::ncu::tracer::RunCounters;
use crate::profile::sample::Sample;

/// The most launches the tracer profiles in one run: each costs its replay passes.
pub const MOST_LAUNCHES: u64 = 40;

/// The counters the tracer read in the traced run, as it wrote them, and how the program
/// ended (its one run: the report's program end).
pub struct CountedInRun {
    pub text: String,
    pub program_end: crate::profile::sample::ProgramEnd,
}

/// What the traced run is asked to read: `metrics` (the profiled run's, by ncu's names).
pub fn counters(metrics: &[&str]) -> RunCounters {
    RunCounters {
        metrics: metrics.iter().map(|m| m.to_string()).collect(),
        most_launches: MOST_LAUNCHES,
    }
}

/// Why `gpulint run` with these options cannot run the program once, if it cannot: what
/// the tracer's counters do not give, or a choice ncu carries out.
pub fn declined(opts: &crate::profile::ncu::NcuOptions, per_launch: bool) -> Option<&'static str> {
    if per_launch {
        Some("--per-launch shows ncu's launches as they are")
    } else if opts.source {
        // The tracer's SASS counters patch the kernels the range profiler would replay.
        Some("--source reads its counters in the traced run")
    } else if opts.kernel_name.is_some() {
        Some("-k chooses kernels by ncu's filter")
    } else if !matches!(opts.sample, Some(Sample::Spread)) {
        // A launch filter among ncu's own arguments turns the sample off too.
        Some(
            "the launches ncu profiles were chosen (--all-launches, --launches-per-config, a filter)",
        )
    } else {
        None
    }
}

/// One process's block of the counters file: the replay passes a launch took, the
/// columns after `correlation` (the metrics, then the device's attributes), a row per
/// profiled launch, and the step that failed, if one did.
#[derive(Debug, PartialEq)]
struct Block {
    pid: u64,
    passes: u64,
    columns: Vec<String>,
    rows: Vec<(u64, Vec<String>)>,
    stopped: Option<String>,
}

/// The header line of each process's block.
const HEADER: &str = "# gpulint counters 1, ";
const STOPPED: &str = "# stopped: ";

/// Reads the counters file; `Err` says what in it could not be read, by line.
fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut columns_next = false;
    for (n, line) in text.lines().enumerate() {
        let at = |what: String| format!("line {}: {what}", n + 1);
        if let Some(header) = line.strip_prefix(HEADER) {
            let field = |name| ingest::trace::number_field(header, name);
            let (Some(pid), Some(passes)) = (field("process"), field("passes")) else {
                return Err(at(format!(
                    "a block's first line without its process and passes: {line:?}"
                )));
            };
            blocks.push(Block {
                pid,
                passes,
                columns: Vec::new(),
                rows: Vec::new(),
                stopped: None,
            });
            columns_next = true;
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            return Err(at("no block's first line before it".into()));
        };
        if let Some(why) = line.strip_prefix(STOPPED) {
            block.stopped = Some(why.to_string());
            continue;
        }
        let mut cells = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let Some(Ok(record)) = cells.records().next() else {
            return Err(at(format!("not a CSV row: {line:?}")));
        };
        let mut cells = record.iter().map(str::to_string);
        if columns_next {
            if cells.next().as_deref() != Some("correlation") {
                return Err(at("the columns should start with `correlation`".into()));
            }
            block.columns = cells.collect();
            columns_next = false;
            continue;
        }
        let correlation = cells.next().and_then(|c| c.parse::<u64>().ok());
        let values: Vec<String> = cells.collect();
        match correlation {
            Some(c) if values.len() == block.columns.len() => block.rows.push((c, values)),
            _ => {
                return Err(at(format!(
                    "a row should be a correlation id and {} values",
                    block.columns.len()
                )));
            }
        }
    }
    Ok(blocks)
}

/// The tracer's counters as a profiled run: the export written to a temporary file, the
/// sample of the launches they stand for (their numbers in the trace), how many, and
/// where a process's profiling stopped early.
pub struct Export {
    pub csv: tempfile::NamedTempFile,
    pub sample: Sample,
    pub launches: usize,
    /// Where a process's profiling stopped early: which process, and the step that failed.
    pub stopped: Vec<String>,
}

/// The profiled run `export` stands for, as ncu's would be returned: named as ncu's is,
/// its export copied where `--save-csv` says.
pub fn run_info(
    export: Export,
    program_status: Option<i32>,
    opts: &crate::profile::ncu::NcuOptions,
    ncu: &std::path::Path,
    program: &[std::ffi::OsString],
) -> crate::error::Result<crate::profile::ncu::RunInfo> {
    if let Some(dest) = &opts.save_csv {
        crate::atomic_file::copy(export.csv.path(), std::path::Path::new(dest))?;
    }
    let name = (opts.save_csv.clone())
        .unwrap_or_else(|| format!("ncu:{}", crate::profile::program_name(program)));
    Ok(crate::profile::ncu::RunInfo {
        ncu: ncu.to_path_buf(),
        program_status,
        csv: export.csv,
        name,
        source_blocks: Vec::new(),
    })
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
    Ok(Export {
        csv,
        sample: Sample::Traced(found.keys().copied().collect()),
        launches: found.len(),
        stopped,
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

/// How many times longer than a kernel's longest profiled launch an unprofiled one must
/// run to be of another kind (two octaves: BFS's Kernel took 6.5 us at its profiled first
/// level and 73-80 us at its largest).
const LONGER: f64 = 4.0;

/// What the report says where the tracer profiled a kernel only before its longest
/// launches (`taken`: the profiled launches' numbers): which kernels, how many launches and
/// how long, against the profiled one's own duration (`sampled`, as the range profiler
/// measured it), for kernels whose longer launches hold 1% of the GPU time or more.
/// Their counters may differ from the profiled launch's, and nothing in one run shows them.
pub fn longer_unprofiled_note(
    sampled: &[ingest::Launch],
    every: &ingest::Profile,
    taken: &[u64],
) -> Option<String> {
    let mut longest: HashMap<&str, f64> = HashMap::new();
    for l in sampled {
        if let Some(&d) = l.metrics.get("duration_ns") {
            let at = longest.entry(l.name.as_str()).or_insert(d);
            *at = at.max(d);
        }
    }
    let time = |t: &ingest::Launch| Some(t.metrics.get("duration_ns")? * t.count as f64);
    let total: f64 = every.launches.iter().filter_map(time).sum();
    // Per kernel: the time, count and longest of its launches that ran LONGER times longer.
    let mut longer: Vec<(&str, f64, u64, f64, f64)> = Vec::new();
    for t in (every.launches.iter()).filter(|t| taken.binary_search(&t.id).is_err()) {
        let (Some(&profiled), Some(&d)) =
            (longest.get(t.name.as_str()), t.metrics.get("duration_ns"))
        else {
            continue;
        };
        if d < LONGER * profiled {
            continue;
        }
        match longer.iter_mut().find(|k| k.0 == t.name) {
            Some(k) => (k.1, k.2, k.3) = (k.1 + d * t.count as f64, k.2 + t.count, k.3.max(d)),
            None => longer.push((&t.name, d * t.count as f64, t.count, d, profiled)),
        }
    }
    let share = crate::profile::sample::KERNEL_SHARE_PCT / 100.0;
    longer.retain(|k| total > 0.0 && k.1 >= share * total);
    if longer.is_empty() {
        return None;
    }
    longer.sort_by(|a, b| b.1.total_cmp(&a.1));
    let listed: Vec<String> = (longer.iter().take(3))
        .map(|(name, ns, n, most, profiled)| {
            format!(
                "{} ({n} launch(es) up to {:.1} us, {} of the GPU time, where its profiled one \
                 took {:.1} us)",
                crate::kernel::short_name(name),
                most / 1e3,
                crate::profile::sample::percent(ns / total),
                profiled / 1e3
            )
        })
        .collect();
    Some(format!(
        "{}the tracer profiled {} only before {} longest launches, whose counters may differ: \
         {}; without --one-run, ncu profiles a launch of each octave of durations",
        ingest::WARNING,
        if longer.len() == 1 {
            "a kernel"
        } else {
            "kernels"
        },
        if longer.len() == 1 { "its" } else { "their" },
        listed.join("; ")
    ))
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

    const COUNTERS: &str = "\
# gpulint counters 1, process 812, passes 7, profiled launches 2
correlation,dram__bytes_read.sum,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio,device__attribute_display_name,device__attribute_compute_capability_major,device__attribute_compute_capability_minor,device__attribute_multiprocessor_count
5,1053696,nan,\"NVIDIA H100 80GB HBM3\",\"9\",\"0\",\"132\"
9,2048,32,\"NVIDIA H100 80GB HBM3\",\"9\",\"0\",\"132\"
# stopped: cuptiRangeProfilerStart returned 7
";

    #[test]
    fn the_counters_file_reads_per_process() {
        let read = blocks(COUNTERS).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!((read[0].pid, read[0].passes), (812, 7));
        assert_eq!(read[0].columns.len(), 6);
        assert_eq!(read[0].rows[1].0, 9);
        assert_eq!(read[0].rows[0].1[3], "9");
        assert_eq!(
            read[0].stopped.as_deref(),
            Some("cuptiRangeProfilerStart returned 7")
        );
    }

    #[test]
    fn a_counters_file_that_does_not_read_says_where() {
        let short = COUNTERS.replace("9,2048,32,", "9,2048,");
        assert!(blocks(&short).unwrap_err().starts_with("line 4:"));
        assert!(blocks("5,1,2\n").unwrap_err().starts_with("line 1:"));
        let no_pid = COUNTERS.replace("process 812, ", "");
        assert!(blocks(&no_pid).unwrap_err().starts_with("line 1:"));
    }

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

    /// BFS's Kernel as one run saw it on the H100: profiled at its first level (6.5 us),
    /// its largest levels 4 times longer and more: the note names it, its launches and
    /// their share; a kernel whose launches are all alike gets none.
    #[test]
    fn a_kernel_profiled_before_its_longest_launches_is_named() {
        let timed = |id: u64, name: &str, ns: f64| {
            let mut l = ingest::Launch::of_shape(id, name.into(), [2048, 1, 1], [512, 1, 1], 1);
            l.metrics.insert("duration_ns", ns);
            l
        };
        let every = ingest::Profile::of_trace(vec![
            timed(0, "Kernel", 0.0),
            timed(1, "Kernel2", 0.0),
            timed(2, "Kernel", 9_600.0),
            timed(3, "Kernel2", 3_900.0),
            timed(4, "Kernel", 72_500.0),
            timed(5, "Kernel2", 4_300.0),
            timed(6, "Kernel", 79_800.0),
            timed(7, "Kernel2", 3_500.0),
        ]);
        let sampled = [timed(0, "Kernel", 6_500.0), timed(1, "Kernel2", 3_400.0)];
        // (72.5 + 79.8) us of the 173.6 us traced: 87.7%.
        let note = longer_unprofiled_note(&sampled, &every, &[0, 1]).unwrap();
        assert!(
            note.contains(
                "Kernel (2 launch(es) up to 79.8 us, 87.7% of the GPU time, where its \
                           profiled one took 6.5 us)"
            ),
            "{note}"
        );
        assert!(!note.contains("Kernel2"), "{note}");
        let alike = [timed(0, "Kernel", 80_000.0), timed(1, "Kernel2", 3_400.0)];
        assert_eq!(longer_unprofiled_note(&alike, &every, &[0, 1]), None);
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
