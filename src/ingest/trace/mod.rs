//! The launch trace that gpulint's CUPTI tracer (src/profile/ncu/tracer/launch_tracer.cpp) writes: every
//! kernel launch of a run, in launch order, with its grid, block, registers, shared
//! memory and duration. It counts what ncu's sample leaves out, at the cost of running
//! the program once.

use std::collections::HashMap;
use std::sync::Arc;

mod blocks;

use super::timeline::{self, RunTimeline, Span};
use super::{Launch, Page, Profile};
use crate::error::{Error, Result};
pub(crate) use blocks::number_field;
use blocks::{MAGIC, Row, blocks, process_of, read_block, refuse_partial};

/// Whether these first bytes of a file are a launch trace's.
pub fn is_trace(head: &[u8]) -> bool {
    head.starts_with(MAGIC.as_bytes())
}

/// How many processes wrote a block to the trace: those that started CUDA, with kernels or
/// without.
pub fn process_blocks(text: &str) -> usize {
    blocks(text).len()
}

/// Reads a trace into launches numbered 0, 1, 2, ... in launch order (as ncu numbers
/// them), with their duration, registers per thread and shared memory per block (static
/// and dynamic) as metrics: with the block, what sets their occupancy limits. `file`
/// names it in errors.
/// A program of several processes (a launcher and its ranks, a forked worker) writes a
/// block per process: their launches merge by start time, as ncu, which follows every
/// process, meets them. A trace that cannot stand for every launch is refused (see
/// [`refuse_partial`]), and so is one without a launch.
pub fn read(text: &str, file: &str) -> Result<Profile> {
    launches_of(parse(text, file)?, file)
}

/// As [`read`], letting go of the text once its rows are read: a long run's trace is
/// hundreds of MiB.
pub fn read_owned(text: String, file: &str) -> Result<Profile> {
    let parsed = parse(&text, file)?;
    drop(text);
    launches_of(parsed, file)
}

/// Each process's rows (with their lines), and the processes.
type Parsed = (Vec<Vec<(u64, Row)>>, Vec<crate::ingest::Process>);

fn parse(text: &str, file: &str) -> Result<Parsed> {
    if !is_trace(text.as_bytes()) {
        return Err(Error::at(
            file,
            1,
            None,
            format!("not a gpulint launch trace: the first line should start {MAGIC:?}"),
        ));
    }
    let mut processes = Vec::new();
    let mut tags = Vec::new();
    for (first_line, block) in blocks(text) {
        refuse_partial(block, first_line, file)?;
        processes.push(read_block(block, first_line, file)?);
        tags.push(process_of(block));
    }
    Ok((processes, tags))
}

fn launches_of((processes, tags): Parsed, file: &str) -> Result<Profile> {
    // Those that launched kernels: a compile worker's block holds none.
    let process_count = processes.iter().filter(|p| !p.is_empty()).count();
    let mut rows = merge_by_start(processes);
    let left_instrumented = restore_instrumented(&mut rows);
    // Seen with CUPTI 11.2-11.7 under a CUDA 13 driver: a trace written, with no record.
    if rows.is_empty() {
        return Err(Error::in_file(
            file,
            "no kernel launch recorded: the program launched none, or CUPTI recorded none \
             (a CUPTI older than the driver?)",
        ));
    }
    let spans: Vec<Span> = rows
        .iter()
        .map(|(process, _, r)| Span {
            device: r.device,
            process: *process as u64,
            start_ns: r.start_ns,
            end_ns: r.end_ns,
        })
        .collect();
    let (waits, bursts, runs) = timeline::read(&spans);
    let mut objects = rustc_hash::FxHashMap::default();
    let launches = rows
        .into_iter()
        .zip(waits.into_iter().zip(bursts))
        .enumerate()
        .map(|(id, ((process, line, row), (wait, burst)))| {
            let mut l = launch(id as u64, line, row, &mut objects);
            l.processes = vec![tags[process]];
            add_timeline(&mut l.metrics, wait, &runs[&(process as u64)], burst);
            l
        })
        .collect();
    let mut notes = Vec::new();
    if left_instrumented > 0 {
        notes.push(format!(
            "{left_instrumented} launch(es) ran with --source's SASS counters or were replayed \
             for --one-run's, and no other launch of their kernel and shape ran without: \
             their traced durations are not their own until the profiled measure replaces \
             them"
        ));
    }
    if process_count > 1 {
        notes.push(format!(
            "the launch trace holds {process_count} processes that launched kernels; their \
             launches are merged by start time, and each is judged on its own timeline"
        ));
    }
    Ok(Profile {
        file: file.to_string(),
        page: Page::Trace,
        launches,
        notes,
        source_blocks: Vec::new(),
    })
}

/// One traced launch: its shape and duration as ncu names them, so that what derives from
/// them (whole warps) is derived. `objects` shares one copy of each launching object's path.
fn launch(
    id: u64,
    line: u64,
    row: Row,
    objects: &mut rustc_hash::FxHashMap<String, Arc<str>>,
) -> Launch {
    // Looked up before a key is made: a trace repeats a few paths and names 100,000s of times.
    let mut shared = |text: &str| -> Option<Arc<str>> {
        if text.is_empty() {
            return None;
        }
        if let Some(known) = objects.get(text) {
            return Some(known.clone());
        }
        let new: Arc<str> = text.into();
        objects.insert(text.to_string(), new.clone());
        Some(new)
    };
    let launched_from = shared(&row.launched_from);
    let mangled = shared(&row.mangled);
    let raw: crate::metrics::RawValues = [
        (
            "gpu__time_duration.sum",
            row.end_ns.saturating_sub(row.start_ns) as f64,
        ),
        (
            "launch__registers_per_thread",
            row.registers_per_thread as f64,
        ),
        (
            "launch__block_size",
            (row.block_x * row.block_y * row.block_z) as f64,
        ),
        (
            "launch__grid_size",
            (row.grid_x * row.grid_y * row.grid_z) as f64,
        ),
    ]
    .into_iter()
    .collect();
    let mut metrics = crate::metrics::resolve(&raw);
    // Static and dynamic together: the tracer records their sum.
    metrics.insert("shared_mem_per_block", row.shared_memory_bytes as f64);
    let grid = [row.grid_x, row.grid_y, row.grid_z];
    let block = [row.block_x, row.block_y, row.block_z];
    Launch {
        metrics,
        launched_from,
        mangled,
        device_ordinal: Some(row.device),
        timed_instrumented: row.instrumented != 0,
        correlation: Some(row.correlation),
        ..Launch::of_shape(id, row.name, grid, block, line)
    }
}

/// The timeline's metrics on each traced launch: its own wait, and the run's (the same on
/// every launch, so that a rule judging one launch sees the whole run). In the order of
/// [`TIMELINE_KEYS`].
fn add_timeline(
    metrics: &mut crate::metrics::Metrics,
    wait_ns: f64,
    run: &RunTimeline,
    burst: timeline::Burst,
) {
    let values = [
        wait_ns,
        run.wait_pct(),
        run.launches as f64,
        run.short_launch_pct,
        burst.launches as f64,
        burst.wait_pct,
        burst.span_ns,
        burst.alike as f64,
        burst.period_ns,
    ];
    for (key, value) in TIMELINE_KEYS.into_iter().zip(values) {
        metrics.insert(key, value);
    }
}

/// The metrics only a launch trace has: what a traced launch carries into the sampled
/// profile.
pub const TIMELINE_KEYS: [&str; 9] = [
    "launch_wait_ns",
    "program_wait_pct",
    "program_launches",
    "program_short_launch_pct",
    "burst_launches",
    "burst_wait_pct",
    "burst_span_ns",
    "bursts_alike",
    "burst_period_ns",
];

/// Whether a traced launch has `key` once judged with the device's attributes from ncu's
/// sample (`profile::sampling::every_launch::traced_launch_metrics`): its own shape, duration, resources
/// and timeline, the device's attributes, the occupancy limits computed from those, and
/// what derives from them alone. What else a rule reads takes ncu's counters.
pub fn gives(key: &str) -> bool {
    static GIVEN: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
        std::sync::OnceLock::new();
    GIVEN
        .get_or_init(|| {
            let mut given: std::collections::HashSet<&'static str> = [
                "duration_ns",
                "grid_blocks",
                "block_size",
                "block_dim_x",
                "registers_per_thread",
                "shared_mem_per_block",
                // Computed from the above with the device's attributes (metrics::occupancy).
                "theoretical_occupancy_pct",
            ]
            .into_iter()
            .chain(crate::metrics::OCCUPANCY_LIMITS)
            .chain(crate::metrics::DEVICE_ATTRIBUTES.iter().copied())
            .chain(TIMELINE_KEYS)
            .collect();
            // Derived keys whose inputs are all given, to a fixed point.
            loop {
                let more: Vec<&'static str> = (crate::metrics::DERIVED.iter())
                    .filter(|d| !given.contains(d.key))
                    .filter(|d| d.inputs.iter().all(|i| given.contains(i)))
                    .map(|d| d.key)
                    .collect();
                if more.is_empty() {
                    break given;
                }
                given.extend(more);
            }
        })
        .contains(key)
}

/// Gives each launch that ran instrumented (`--source`'s SASS counters) or replayed
/// (`--one-run`'s counters, which CUPTI leaves untimed) the median duration of its
/// kernel's launches of the same grid and block that ran without, else, where its grid
/// changes from launch to launch (a wavefront, a shrinking matrix), the duration of its
/// kernel's launch of the same block whose grid is nearest in blocks; returns how many
/// had neither (a kernel launched once, or with one block only). Instrumented, a kernel
/// ran 2-140 times longer on the H200 (lab/runs/2026-12-04-sass-lines.txt).
fn restore_instrumented(rows: &mut [(usize, u64, Row)]) -> usize {
    let block = |r: &Row| [r.block_x, r.block_y, r.block_z];
    let blocks = |r: &Row| r.grid_x * r.grid_y * r.grid_z;
    let mut by_shape: HashMap<(String, [u64; 3], u64), Vec<u64>> = HashMap::new();
    for (_, _, r) in rows.iter().filter(|(_, _, r)| r.instrumented == 0) {
        let d = r.end_ns.saturating_sub(r.start_ns);
        let key = (r.name.clone(), block(r), blocks(r));
        by_shape.entry(key).or_default().push(d);
    }
    let mut left = 0;
    for (_, _, r) in rows.iter_mut().filter(|(_, _, r)| r.instrumented != 0) {
        let nearest = (by_shape.iter_mut())
            .filter(|((name, b, _), _)| *name == r.name && *b == block(r))
            // Ties (62 and 64 blocks for 63) go to the smaller grid, whatever the map's order.
            .min_by_key(|((_, _, n), _)| (n.abs_diff(blocks(r)), *n));
        match nearest {
            Some((_, durations)) => {
                durations.sort_unstable();
                // Still marked: a profiled measure of the launch itself replaces this.
                r.end_ns = r.start_ns + durations[durations.len() / 2];
            }
            None => left += 1,
        }
    }
    left
}

/// Interleaves the processes' launches by start time, each process keeping its own order;
/// each launch with its process's index.
fn merge_by_start(processes: Vec<Vec<(u64, Row)>>) -> Vec<(usize, u64, Row)> {
    let mut queues: Vec<std::collections::VecDeque<(u64, Row)>> =
        processes.into_iter().map(Into::into).collect();
    let mut merged = Vec::new();
    while let Some(next) = (0..queues.len())
        .filter(|&q| !queues[q].is_empty())
        .min_by_key(|&q| queues[q][0].1.start_ns)
    {
        merged.extend(
            queues[next]
                .pop_front()
                .map(|(line, row)| (next, line, row)),
        );
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace's columns up to the kernel's name: an older tracer's whole header.
    const SHAPE_COLUMNS: &str = "correlation,device,stream,start_ns,end_ns,grid_x,grid_y,\
        grid_z,block_x,block_y,block_z,registers_per_thread,shared_memory_bytes,name";

    #[test]
    fn a_trace_reads_in_launch_order_with_durations() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-corpus/trace_lud.csv"
        ))
        .unwrap();
        let profile = read(&text, "trace_lud.csv").unwrap();
        // LU on 1024x1024 with 16x16 tiles: 64 diagonal, 63 perimeter, 63 internal.
        assert_eq!(profile.launches.len(), 190);
        let first = &profile.launches[2];
        assert_eq!(first.name, "lud_internal(float*, int, int)");
        assert_eq!(first.grid, Some([63, 63, 1]));
        assert_eq!(first.block, Some([16, 16, 1]));
        assert_eq!(first.id, 2);
        assert!(first.metrics["duration_ns"] > 0.0);
        assert_eq!(first.metrics["shared_mem_per_block"], 2048.0);
    }

    /// A row with a shape no CUDA launch has (here 2^32 blocks a side, registers of
    /// u64::MAX) is refused, naming its line and field: the grid's product overflowed, and a
    /// release build called the wrapped grid a failed launch.
    #[test]
    fn an_impossible_launch_shape_is_refused_by_line_and_field() {
        let text = format!(
            "# gpulint launch trace 1, dropped records: 0\n{SHAPE_COLUMNS}\n\
             1,0,7,100,200,8,1,1,256,1,1,32,0,\"k(int)\"\n\
             2,0,7,300,400,1,4294967296,1,256,1,1,32,0,\"k(int)\"\n"
        );
        let err = read(&text, "t.csv").unwrap_err().to_string();
        assert!(
            err.starts_with("t.csv:4: launch trace field `grid_y`"),
            "{err}"
        );
        let regs = text.replace(
            ",1,4294967296,1,256,1,1,32,",
            ",1,1,1,256,1,1,18446744073709551615,",
        );
        let err = read(&regs, "t.csv").unwrap_err().to_string();
        assert!(err.contains("`registers_per_thread`"), "{err}");
    }

    /// The tracer writes a kernel's mangled name on its first row only; every launch of
    /// the kernel gets it, and a kernel written without one has none.
    #[test]
    fn a_kernels_mangled_name_reaches_its_every_launch() {
        let text = "# gpulint launch trace 1, process 7, dropped records: 0\n\
            correlation,device,stream,start_ns,end_ns,grid_x,grid_y,grid_z,block_x,block_y,\
            block_z,registers_per_thread,shared_memory_bytes,name,launched_from,mangled\n\
            1,0,7,100,200,8,1,1,256,1,1,32,0,\"axpy(float*)\",\"\",\"_Z4axpyPf\"\n\
            2,0,7,300,400,1,1,1,32,1,1,16,0,\"step()\",\"\",\"\"\n\
            3,0,7,500,600,8,1,1,256,1,1,32,0,\"axpy(float*)\",\"\",\"\"\n";
        let profile = read(text, "trace.csv").unwrap();
        let mangled: Vec<Option<&str>> = profile
            .launches
            .iter()
            .map(|l| l.mangled.as_deref())
            .collect();
        assert_eq!(mangled, [Some("_Z4axpyPf"), None, Some("_Z4axpyPf")]);
    }

    /// The kernels of one CUDA graph launch share its correlation id
    /// (fixtures/h200-corpus/trace_graph_steps.csv): rows in another order read back in
    /// the order they ran.
    #[test]
    fn the_kernels_of_a_graph_launch_read_in_the_order_they_ran() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-corpus/trace_graph_steps.csv"
        ))
        .unwrap();
        let names = |text: &str| -> Vec<String> {
            let profile = read(text, "t.csv").unwrap();
            profile.launches.iter().map(|l| l.name.clone()).collect()
        };
        let in_order = names(&text);
        assert_eq!(in_order.len(), 91);
        assert!(in_order[1].starts_with("axpy") && in_order[3].starts_with("norm_partial"));
        let mut lines: Vec<&str> = text.lines().collect();
        lines[2..].reverse();
        assert_eq!(names(&(lines.join("\n") + "\n")), in_order);
    }

    /// A launch that ran with --source's SASS counters takes the median duration of its
    /// kernel's launches of the same shape that did not, else that of the launch whose grid
    /// is nearest; one with no other launch keeps its own, marked, and the trace says so.
    #[test]
    fn instrumented_launches_take_the_duration_of_their_uninstrumented_like() {
        let header = format!("{SHAPE_COLUMNS},launched_from,mangled,instrumented");
        let text = format!(
            "# gpulint launch trace 1, process 7, dropped records: 0\n{header}\n\
             1,0,7,1000,41000,64,1,1,256,1,1,32,0,\"k(int)\",\"\",\"_Z1ki\",1\n\
             2,0,7,50000,51000,64,1,1,256,1,1,32,0,\"k(int)\",\"\",\"\",0\n\
             3,0,7,60000,61200,64,1,1,256,1,1,32,0,\"k(int)\",\"\",\"\",0\n\
             4,0,7,70000,71100,64,1,1,256,1,1,32,0,\"k(int)\",\"\",\"\",0\n\
             5,0,7,80000,99000,8,1,1,256,1,1,32,0,\"once(int)\",\"\",\"_Z4oncei\",1\n\
             6,0,7,100000,190000,63,1,1,256,1,1,32,0,\"wave(int)\",\"\",\"_Z4wavei\",1\n\
             7,0,7,200000,201240,62,1,1,256,1,1,32,0,\"wave(int)\",\"\",\"\",0\n\
             8,0,7,210000,210610,61,1,1,256,1,1,32,0,\"wave(int)\",\"\",\"\",0\n\
             # end of process 7\n"
        );
        let profile = read(&text, "t.csv").unwrap();
        let durations: Vec<f64> = (profile.launches.iter())
            .map(|l| l.metrics.get("duration_ns").copied().unwrap_or(-1.0))
            .collect();
        // wave's first launch, of 63 blocks, takes its 62-block launch's time.
        assert_eq!(
            durations,
            [
                1100.0, 1000.0, 1200.0, 1100.0, 19000.0, 1240.0, 1240.0, 610.0
            ]
        );
        let marked: Vec<bool> = (profile.launches.iter())
            .map(|l| l.timed_instrumented)
            .collect();
        assert_eq!(
            marked,
            [true, false, false, false, true, true, false, false]
        );
        assert!(
            profile
                .notes
                .iter()
                .any(|n| n.starts_with("1 launch(es) ran with --source")),
            "{:?}",
            profile.notes
        );
    }

    /// A counted launch as far from two grids' launches (63 blocks, between 62 and 64)
    /// takes the smaller grid's time, whichever order the map holds them in: every read of
    /// the same trace gives the same durations.
    #[test]
    fn an_instrumented_launch_between_two_grids_takes_the_smaller_ones_time() {
        let header = format!("{SHAPE_COLUMNS},launched_from,mangled,instrumented");
        let text = format!(
            "# gpulint launch trace 1, process 7, dropped records: 0\n{header}\n\
             1,0,7,0,90000,63,1,1,256,1,1,32,0,\"wave(int)\",\"\",\"_Z4wavei\",1\n\
             2,0,7,100000,101240,62,1,1,256,1,1,32,0,\"wave(int)\",\"\",\"\",0\n\
             3,0,7,110000,111280,64,1,1,256,1,1,32,0,\"wave(int)\",\"\",\"\",0\n\
             # end of process 7\n"
        );
        for _ in 0..20 {
            let profile = read(&text, "t.csv").unwrap();
            assert_eq!(profile.launches[0].metrics["duration_ns"], 1240.0);
        }
    }

    /// A launcher whose two ranks each launch kernels writes two blocks (each closed by
    /// its end line): their launches merge by start time, each rank in its own order.
    #[test]
    fn the_blocks_of_several_processes_merge_by_start_time() {
        let header = SHAPE_COLUMNS;
        let text = format!(
            "# gpulint launch trace 1, process 7, dropped records: 0\n{header}\n\
             1,0,7,100,150,8,1,1,256,1,1,32,0,\"a()\"\n\
             2,0,7,300,350,8,1,1,256,1,1,32,0,\"b()\"\n\
             # end of process 7\n\
             # gpulint launch trace 1, process 8, dropped records: 0\n{header}\n\
             1,0,7,200,260,4,1,1,128,1,1,32,0,\"a()\"\n\
             2,0,7,x,450,4,1,1,128,1,1,32,0,\"b()\"\n\
             # end of process 8\n"
        );
        let err = read(&text, "t.csv").unwrap_err().to_string();
        assert_eq!(
            err,
            "t.csv:9:4: field `start_ns` is \"x\", expected a whole number"
        );
        let profile = read(&text.replace(",x,", ",400,"), "t.csv").unwrap();
        let order: Vec<(&str, u64)> = profile
            .launches
            .iter()
            .map(|l| (l.name.as_str(), l.grid.unwrap()[0]))
            .collect();
        assert_eq!(order, [("a()", 8), ("a()", 4), ("b()", 8), ("b()", 4)]);
        assert_eq!(profile.launches[3].id, 3);
        assert!(
            profile.notes[0].contains("2 processes"),
            "{:?}",
            profile.notes
        );
    }

    /// Two ranks shown one GPU each as device 0 (a launcher that sets CUDA_VISIBLE_DEVICES
    /// per rank), running at once: each launch names its rank, and each rank's waits are
    /// its own. Rank 1 waits 8 us before each of its launches; rank 0 never does.
    #[test]
    fn ranks_on_one_ordinal_each_keep_their_name_and_their_waits() {
        let header = SHAPE_COLUMNS;
        let rows = |first: u64, every: u64| -> String {
            (0..10u64)
                .map(|k| {
                    let at = first + k * every;
                    format!(
                        "{},0,7,{at},{},8,1,1,256,1,1,32,0,\"k()\"\n",
                        k + 1,
                        at + 2_000
                    )
                })
                .collect()
        };
        let text = format!(
            "# gpulint launch trace 1, process 7, rank 0, dropped records: 0\n{header}\n{}\
             # end of process 7\n\
             # gpulint launch trace 1, process 8, rank 1, dropped records: 0\n{header}\n{}\
             # end of process 8\n",
            rows(0, 2_000),
            rows(1_000, 10_000)
        );
        let profile = read(&text, "t.csv").unwrap();
        let waited = |rank: u64| -> Vec<f64> {
            (profile.launches.iter())
                .filter(|l| l.processes.first().and_then(|p| p.rank) == Some(rank))
                .map(|l| l.metrics.get("program_wait_pct").copied().unwrap())
                .collect()
        };
        assert_eq!(waited(0), [0.0; 10]);
        let want = 100.0 * (9.0 * 8_000.0) / (9.0 * 8_000.0 + 10.0 * 2_000.0);
        assert!(
            waited(1).iter().all(|w| (w - want).abs() < 1e-9),
            "{:?}",
            waited(1)
        );
        let pids: std::collections::BTreeSet<u64> = (profile.launches.iter())
            .filter_map(|l| l.processes.first().map(|p| p.pid))
            .collect();
        assert_eq!(pids, [7, 8].into());
        // A trace trimmed by hand, its first line naming no process: pid 0, no rank.
        let bare = process_of("# gpulint launch trace 1, dropped records: 0\n");
        assert_eq!(bare, crate::ingest::Process { rank: None, pid: 0 });
        assert_eq!(bare.to_string(), "process 0");
    }

    #[test]
    fn a_broken_trace_says_where() {
        let text = "# gpulint launch trace 1, dropped records: 0\n\
            correlation,device,stream,start_ns,end_ns,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers_per_thread,shared_memory_bytes,name\n\
            1,0,7,10,20,1,1,1,16,1,1,40,1024,\"k()\"\n\
            2,0,7,30,x,1,1,1,16,1,1,40,1024,\"k()\"\n";
        let err = read(text, "t.csv").unwrap_err().to_string();
        assert_eq!(
            err,
            "t.csv:4:5: field `end_ns` is \"x\", expected a whole number"
        );
        let err = read("ID,Kernel Name\n", "t.csv").unwrap_err().to_string();
        assert!(err.contains("not a gpulint launch trace"), "{err}");
        let header = text.lines().take(3).collect::<Vec<_>>().join("\n");
        let dropped = header.replace("dropped records: 0", "dropped records: 12");
        let err = read(&dropped, "t.csv").unwrap_err().to_string();
        assert!(err.contains("CUPTI dropped records"), "{err}");
        let empty = text.lines().take(2).collect::<Vec<_>>().join("\n");
        let err = read(&empty, "t.csv").unwrap_err().to_string();
        assert!(err.contains("no kernel launch recorded"), "{err}");
    }
}
