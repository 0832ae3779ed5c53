//! gpulint's launch tracer (src/profile/ncu/tracer/launch_tracer.cpp), built and run here without a GPU:
//! a stand-in CUDA driver loads it and calls InitializeInjection, and a stand-in CUPTI
//! (tests/stand-in/cupti/) delivers kernel records as CUPTI lays them out. Needs a C and a
//! C++ compiler (`cc`, `c++`), as gpulint's own build of the tracer does.
// Linux only: the launch tracer is an LD_PRELOAD-style CUDA injection.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn compile(compiler: &str, args: &[&str], source: &str, out: &Path) {
    let status = Command::new(compiler)
        .args(args)
        .arg(format!("{ROOT}/{source}"))
        .arg("-o")
        .arg(out)
        .arg("-ldl")
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(status.success(), "{compiler} {source}: {status}");
}

/// The first of these compilers on PATH.
fn first_on_path(names: &[&'static str]) -> Option<&'static str> {
    let path = std::env::var_os("PATH")?;
    names
        .iter()
        .copied()
        .find(|n| std::env::split_paths(&path).any(|d| d.join(n).is_file()))
}

/// The tracer, the stand-in CUPTI and the stand-in driver, built into a fresh folder;
/// `None` on a machine with no C or C++ compiler, where gpulint cannot build it either.
fn build() -> Option<(PathBuf, PathBuf, PathBuf, PathBuf)> {
    let (Some(cxx), Some(cc)) = (
        first_on_path(&["c++", "g++", "clang++"]),
        first_on_path(&["cc", "gcc", "clang"]),
    ) else {
        // A test that cannot run must not pass unseen where it should run: CI has a
        // compiler (.ci/run's machine is Debian with gcc), so there its absence fails.
        assert!(
            std::env::var_os("CI").is_none(),
            "no C and C++ compiler on PATH in CI: the tracer tests cannot run"
        );
        eprintln!("SKIPPED: no C and C++ compiler on PATH: the tracer is not built here");
        return None;
    };
    let dir = std::env::temp_dir().join(format!(
        "gpulint-tracer-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (tracer, cupti, driver) = (
        dir.join("tracer.so"),
        // Named as CUPTI is, so that the tracer skips its frames on a launch's stack.
        dir.join("libcupti-stand-in.so"),
        dir.join("driver"),
    );
    let shared = ["-shared", "-fPIC", "-O2"];
    let cxx_args = [&shared[..], &["-std=c++17", "-pthread", "-Wall", "-Werror"]].concat();
    compile(
        cxx,
        &cxx_args,
        "src/profile/ncu/tracer/launch_tracer.cpp",
        &tracer,
    );
    // The stand-in CUPTI's --source side and range profiler are built into the same library.
    let source_side = format!("{ROOT}/tests/stand-in/cupti/fake_source.c");
    let counters_side = format!("{ROOT}/tests/stand-in/cupti/fake_counters.c");
    let cupti_args = [&shared[..], &[source_side.as_str(), counters_side.as_str()]].concat();
    compile(cc, &cupti_args, "tests/stand-in/cupti/fake_cupti.c", &cupti);
    compile(cc, &[], "tests/stand-in/cupti/fake_driver.c", &driver);
    let soname = ["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1"];
    let libcuda = dir.join("libcuda.so.1");
    compile(cc, &soname, "tests/stand-in/cupti/fake_libcuda.c", &libcuda);
    Some((dir, tracer, cupti, driver))
}

fn run_traced(driver: &Path, tracer: &Path, cupti: Option<&Path>, out: &Path) -> Option<i32> {
    traced(driver, tracer, cupti, out).status().unwrap().code()
}

fn traced(driver: &Path, tracer: &Path, cupti: Option<&Path>, out: &Path) -> Command {
    let mut command = Command::new(driver);
    command
        .env("CUDA_INJECTION64_PATH", tracer)
        .env("GPULINT_TRACE_OUT", out)
        .env_remove("GPULINT_CUPTI");
    for rank in RANK_VARIABLES {
        command.env_remove(rank);
    }
    if let Some(cupti) = cupti {
        command.env("GPULINT_CUPTI", cupti);
    }
    command
}

/// Kernel records only, in launch order: the call order, and within one call (a CUDA
/// graph's kernels) the order they started; names demangled; a name with a quote and a
/// comma quoted as CSV; shared memory static plus dynamic.
#[test]
fn the_tracer_writes_every_kernel_launch_in_launch_order() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let out = dir.join("trace.csv");
    assert_eq!(run_traced(&driver, &tracer, Some(&cupti), &out), Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("# gpulint launch trace 1, process ")
            && text
                .lines()
                .next()
                .unwrap()
                .ends_with(", dropped records: 0"),
        "{text}"
    );
    // As written, not only as read back: the reader sorts too. Each launched kernel names
    // the object that launched it (the stand-in driver, past CUPTI's frames); the kernel
    // whose launch call the tracer never saw names none. The mangled name comes next to
    // last, and last whether the launch ran with --source's SASS counters (none here).
    let driver_path = std::fs::canonicalize(&driver).unwrap();
    let launched = format!("\"{}\"", driver_path.display());
    let rows: Vec<&str> = text.lines().skip(2).collect();
    assert!(
        rows[1].starts_with("8,")
            && rows[1].ends_with(&format!(
                ",\"axpy(float const*, float*, float, int)\",{launched},\"_Z4axpyPKfPffi\",0"
            )),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].starts_with("8,")
            && rows[2].ends_with(&format!(
                ",\"step(float*, int)\",{launched},\"_Z4stepPfi\",0"
            ))
    );
    assert!(
        rows[3].ends_with(",\"jit_\"\"fused\"\", 2\",\"\",\"jit_\"\"fused\"\", 2\",0"),
        "{}",
        rows[3]
    );
    let profile = gpulint::parse_bytes("trace.csv", text.as_bytes()).unwrap();
    let names: Vec<&str> = profile.launches.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "void scale<4>(float*, float, int)",
            "axpy(float const*, float*, float, int)",
            "step(float*, int)",
            "jit_\"fused\", 2"
        ]
    );
    assert_eq!(profile.launches[1].grid, Some([4096, 1, 1]));
    assert_eq!(profile.launches[1].metrics["duration_ns"], 50.0);
    assert_eq!(
        profile.launches[0].metrics["shared_mem_per_block"],
        (1024 + 512) as f64
    );
    assert_eq!(profile.launches[0].metrics["registers_per_thread"], 32.0);
    assert_eq!(
        profile.launches[0].launched_from.as_deref(),
        Some(driver_path.to_str().unwrap())
    );
    assert_eq!(profile.launches[3].launched_from, None);
    assert_eq!(
        profile.launches[1].mangled.as_deref(),
        Some("_Z4axpyPKfPffi")
    );

    // A second process appends its own block: the two merge, each closed by its line.
    assert_eq!(run_traced(&driver, &tracer, Some(&cupti), &out), Some(0));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.matches("# end of process ").count(), 2, "{text}");
    let both = gpulint::parse_bytes("trace.csv", text.as_bytes()).unwrap();
    assert_eq!(both.launches.len(), 8);

    // Without CUPTI to load, the tracer declines to start and writes nothing.
    let none = dir.join("none.csv");
    assert_eq!(run_traced(&driver, &tracer, None, &none), Some(3));
    assert!(!none.exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// Where launchers put a process's rank, first to last as the tracer reads them.
const RANK_VARIABLES: [&str; 4] = ["RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"];

/// The ranks of a job each write a block naming their rank, from the first of the
/// launchers' variables that holds a number, and every launch read back carries it.
#[test]
fn each_ranks_block_names_its_rank() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let out = dir.join("trace.csv");
    let ranks: [&[(&str, &str)]; 3] = [
        &[("RANK", "0"), ("SLURM_PROCID", "9")],
        &[("RANK", "one"), ("OMPI_COMM_WORLD_RANK", "1")],
        &[("SLURM_PROCID", "2")],
    ];
    for vars in ranks {
        let status = traced(&driver, &tracer, Some(&cupti), &out)
            .envs(vars.iter().copied())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let text = std::fs::read_to_string(&out).unwrap();
    let firsts: Vec<&str> = (text.lines())
        .filter(|l| l.starts_with("# gpulint launch trace 1, "))
        .collect();
    for (first, rank) in firsts.iter().zip(0..) {
        assert!(
            first.ends_with(&format!(", rank {rank}, dropped records: 0")),
            "{first}"
        );
    }
    assert_eq!(firsts.len(), 3, "{text}");
    let profile = gpulint::parse_bytes("trace.csv", text.as_bytes()).unwrap();
    let ranks: std::collections::BTreeSet<Option<u64>> = (profile.launches.iter())
        .map(|l| l.processes.first().and_then(|p| p.rank))
        .collect();
    assert_eq!(ranks, [Some(0), Some(1), Some(2)].into());
    // Without any, the line names the process alone, as before.
    let alone = dir.join("alone.csv");
    assert_eq!(run_traced(&driver, &tracer, Some(&cupti), &alone), Some(0));
    let text = std::fs::read_to_string(&alone).unwrap();
    assert!(!text.lines().next().unwrap().contains("rank"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A program that forks after CUDA started, whose child leaves through exit(): the child
/// inherits the tracer's exit handler, and on a real GPU flushing CUPTI there waited for
/// ever. The handler acts only in the process that loaded the tracer: one block is
/// written, by the parent, and closed by its end line.
#[test]
fn a_forked_child_leaves_the_trace_to_its_parent() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let out = dir.join("trace.csv");
    let run = traced(&driver, &tracer, Some(&cupti), &out)
        .env("FAKE_DRIVER_FORK", "1")
        .output()
        .unwrap();
    assert!(run.status.success());
    let stdout = String::from_utf8_lossy(&run.stdout);
    let child: u32 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("child "))
        .unwrap_or_else(|| panic!("{stdout}"))
        .parse()
        .unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.matches("# gpulint launch trace 1, process ").count(),
        1,
        "{text}"
    );
    assert!(!text.contains(&format!("process {child}")), "{text}");
    assert_eq!(text.matches("# end of process ").count(), 1, "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// With a window, the tracer ends a program that would run on: the trace is written, it
/// says the window ended the run, and the program exits at once with status 0, its own
/// exit (status 7, 30 s later) never reached.
#[test]
fn the_window_ends_a_long_run_with_its_trace_written() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let out = dir.join("trace.csv");
    let started = std::time::Instant::now();
    let status = traced(&driver, &tracer, Some(&cupti), &out)
        .env("FAKE_DRIVER_SLEEP", "30")
        .env("GPULINT_TRACE_WINDOW_S", "1")
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let text = std::fs::read_to_string(&out).unwrap();
    // The line gpulint reads (src/profile/ncu/tracer/mod.rs checks it is the tracer's).
    assert!(
        text.contains("# stopped at the end of its window\n"),
        "{text}"
    );
    assert_eq!(text.matches("# end of process").count(), 1, "{text}");
    let profile = gpulint::parse_bytes("trace.csv", text.as_bytes()).unwrap();
    assert_eq!(profile.launches.len(), 4);
    let _ = std::fs::remove_dir_all(dir);
}

/// A window's clock starts at the program's first kernel launch: a program that starts
/// CUDA, then spends 3 s (a script's imports) before launching, is traced for its window
/// after that, its launches all in the trace.
#[test]
fn the_window_starts_at_the_first_launch() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let out = dir.join("trace.csv");
    let started = std::time::Instant::now();
    let status = traced(&driver, &tracer, Some(&cupti), &out)
        .env("FAKE_DRIVER_DELAY", "3")
        .env("FAKE_DRIVER_SLEEP", "30")
        .env("GPULINT_TRACE_WINDOW_S", "1")
        .status()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0));
    assert!(took >= std::time::Duration::from_secs(4), "{took:?}");
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("# stopped at the end of its window\n"),
        "{text}"
    );
    let profile = gpulint::parse_bytes("trace.csv", text.as_bytes()).unwrap();
    assert_eq!(profile.launches.len(), 4, "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A window never ends the program inside a range: where a profiled launch's replay (1.5 s
/// here, inside the launch call) outlasts the window (1 s), the program ends after a range
/// closes, and every profiled launch has its row.
#[test]
fn the_window_never_ends_inside_a_range() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let env = [
        ("GPULINT_COUNTER_METRICS", "dram__bytes_read.sum"),
        ("FAKE_REPLAY_MS", "1500"),
        ("FAKE_DRIVER_SLEEP", "30"),
        ("GPULINT_TRACE_WINDOW_S", "1"),
    ];
    let started = std::time::Instant::now();
    let (trace, counted) = counted_run(&dir, &tracer, &cupti, &driver, &env);
    let took = started.elapsed();
    assert!(took >= std::time::Duration::from_millis(1500), "{took:?}");
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    assert!(
        trace.contains("# stopped at the end of its window\n"),
        "{trace}"
    );
    assert!(!counted.contains("# stopped"), "{counted}");
    let rows = profiled_ids(&counted).len();
    assert!(rows >= 1, "{counted}");
    assert!(
        counted.contains(&format!("profiled launches {rows}, ")),
        "{counted}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The profiling has a budget of its own: 5 s plus half the run's time less its
/// profiling. Where each profiled launch takes 2.6 s, the stand-in's three kernels get two
/// ranges (5.2 s), and the third kernel none; under a window, which bounds the run, all
/// three.
#[test]
fn the_profiling_stays_within_its_budget() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let env = [
        ("GPULINT_COUNTER_METRICS", "dram__bytes_read.sum"),
        ("FAKE_REPLAY_MS", "2600"),
    ];
    let (_, counted) = counted_run(&dir, &tracer, &cupti, &driver, &env);
    // The third kernel's one launch came once the budget was spent: the header counts it.
    assert!(
        counted.contains("profiled launches 2, kernels the budget left 1\n"),
        "{counted}"
    );
    let windowed = [env[0], env[1], ("GPULINT_TRACE_WINDOW_S", "60")];
    let (_, counted) = counted_run(&dir, &tracer, &cupti, &driver, &windowed);
    assert!(
        counted.contains("profiled launches 3, kernels the budget left 0\n"),
        "{counted}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A kernel whose first launch came when the budget was spent is profiled at a later
/// launch once the run has earned the time, and is then not counted as left: with 2.6-s
/// ranges, C's first launch finds 5.2 s spent against 5 s; a second after, the budget is
/// 5.5 s and its next launch gets a range.
#[test]
fn a_kernel_the_budget_passed_over_is_profiled_once_the_run_earns_it() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let script = "0 64 _Z1Av\n0 64 _Z1Bv\n0 64 _Z1Cv\n1000000 64 _Z1Cv\n";
    let counted = scripted_run(&dir, (&tracer, &cupti, &driver), script, "2600", &[]);
    // The script's launches 0, 1 and 3 (the stand-in numbers launch n 101 + n).
    let profiled = profiled_ids(&counted);
    assert_eq!(profiled, ["101", "102", "104"], "{counted}");
    assert!(
        counted.contains("profiled launches 3, kernels the budget left 0\n"),
        "{counted}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// With `--source`'s variables the tracer counts the first launch of each of the user's
/// kernels (those GPULINT_SASS_KERNELS lists, where set), with each instruction's file and
/// line, marks the counted launches in the trace, and writes the stall samples of the
/// user's kernels only (the stand-in's library kernel, never launched through a call the
/// tracer saw, is left out), under CUPTI's reason names less the "_not_issued" ones.
#[test]
fn source_rows_count_the_listed_kernels_and_sample_the_users() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let (trace, counters, stalls) = (
        dir.join("trace.csv"),
        dir.join("sass.csv"),
        dir.join("stalls.csv"),
    );
    let run = |list: Option<&str>, sample_stalls: bool| {
        for file in [&trace, &counters, &stalls] {
            let _ = std::fs::remove_file(file);
        }
        let mut command = traced(&driver, &tracer, Some(&cupti), &trace);
        command
            .env("FAKE_LIBCUDA", dir.join("libcuda.so.1"))
            .env("GPULINT_SASS_OUT", &counters)
            .env_remove("GPULINT_SASS_KERNELS")
            .env_remove("GPULINT_STALL_OUT");
        if let Some(list) = list {
            command.env("GPULINT_SASS_KERNELS", list);
        }
        if sample_stalls {
            command.env("GPULINT_STALL_OUT", &stalls);
        }
        assert_eq!(command.status().unwrap().code(), Some(0));
        let read = |f: &PathBuf| std::fs::read_to_string(f).unwrap_or_default();
        (read(&trace), read(&counters), read(&stalls))
    };
    let functions = |rows: &str| -> Vec<String> {
        let mut seen: Vec<String> = (rows.lines().skip(1))
            .map(|l| l.split(',').next().unwrap().trim_matches('"').to_string())
            .collect();
        seen.dedup();
        seen
    };
    let (_, counted, sampled) = run(None, true);
    assert!(
        counted.starts_with(
            "function,pc,file,line,smsp__sass_sectors_mem_global,\
             smsp__sass_sectors_mem_global_ideal\n\"_Z4axpyPKfPffi\",0,\"/src/k.cu\",10,6,4\n"
        ),
        "{counted}"
    );
    assert_eq!(
        functions(&counted),
        ["_Z4axpyPKfPffi", "_Z4stepPfi", "_Z5scaleILi4EEvPffi"]
    );
    assert_eq!(
        sampled.lines().take(2).collect::<Vec<_>>(),
        [
            "function,pc,file,line,reason,samples",
            "\"_Z4axpyPKfPffi\",16,\"/src/k.cu\",11,\
             smsp__pcsamp_warps_issue_stalled_long_scoreboard,5"
        ]
    );
    assert_eq!(
        functions(&sampled),
        ["_Z4axpyPKfPffi", "_Z4stepPfi", "_Z5scaleILi4EEvPffi"]
    );
    // Listed kernels only; no stall samples unless asked for.
    let (traced_rows, counted, sampled) = run(Some("_Z5scaleILi4EEvPffi,_Z4stepPfi"), false);
    assert_eq!(functions(&counted), ["_Z4stepPfi", "_Z5scaleILi4EEvPffi"]);
    assert!(sampled.is_empty());
    let instrumented: Vec<&str> = (traced_rows.lines())
        .filter(|l| l.contains("scale<4>") || l.contains("axpy("))
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(instrumented, ["1", "0"], "{traced_rows}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The stand-in driver under the tracer with a counters file (`counters.csv` in `dir`, the
/// trace beside it, both written afresh), the stand-in libcuda and `env` added (the
/// metrics among it); a run that must exit 0. Returns the trace and the counters file.
fn counted_run(
    dir: &Path,
    tracer: &Path,
    cupti: &Path,
    driver: &Path,
    env: &[(&str, &str)],
) -> (String, String) {
    let (trace, counters) = (dir.join("trace.csv"), dir.join("counters.csv"));
    for file in [&trace, &counters] {
        let _ = std::fs::remove_file(file);
    }
    let mut command = traced(driver, tracer, Some(cupti), &trace);
    command
        .env("FAKE_LIBCUDA", dir.join("libcuda.so.1"))
        .env("GPULINT_COUNTERS_OUT", &counters)
        .env_remove("GPULINT_COUNTER_LAUNCHES")
        .env_remove("GPULINT_SASS_OUT")
        .envs(env.iter().copied());
    assert_eq!(command.status().unwrap().code(), Some(0));
    let read = |f: &PathBuf| std::fs::read_to_string(f).unwrap_or_default();
    (read(&trace), read(&counters))
}

/// The correlation ids of the profiled launches a counters file holds, in range order.
fn profiled_ids(counted: &str) -> Vec<&str> {
    (counted.lines())
        .filter(|l| !l.starts_with('#') && !l.starts_with("correlation"))
        .map(|l| l.split(',').next().unwrap())
        .collect()
}

/// The stand-in driver replaying `script` (FAKE_DRIVER_SCRIPT: a launch a line, its wait
/// in microseconds, its grid's blocks and its kernel) under the tracer, each profiled
/// launch taking `replay_ms`, with `more` added to the environment; the counters file it
/// left.
fn scripted_run(
    dir: &Path,
    (tracer, cupti, driver): (&Path, &Path, &Path),
    script: &str,
    replay_ms: &str,
    more: &[(&str, &str)],
) -> String {
    let path = dir.join("script.txt");
    std::fs::write(&path, script).unwrap();
    let mut env = vec![
        ("FAKE_DRIVER_SCRIPT", path.to_str().unwrap()),
        ("FAKE_REPLAY_MS", replay_ms),
        ("GPULINT_COUNTER_METRICS", "dram__bytes_read.sum"),
    ];
    env.extend_from_slice(more);
    counted_run(dir, tracer, cupti, driver, &env).1
}

/// With a counters file and metrics named, the tracer profiles the first launch of each
/// kernel with the range profiler (at most GPULINT_COUNTER_LAUNCHES), writes each one's
/// values under its correlation id, then the device's attributes under ncu's names, and
/// marks those launches in the trace as replayed; a metric the chip lacks stops the
/// profiling, says which step failed, and leaves the program and its trace as they were.
#[test]
fn counters_profile_each_kernels_first_launch_in_the_traced_run() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let run = |metrics: &str, most: Option<&str>| {
        let mut env = vec![("GPULINT_COUNTER_METRICS", metrics)];
        env.extend(most.map(|most| ("GPULINT_COUNTER_LAUNCHES", most)));
        counted_run(&dir, &tracer, &cupti, &driver, &env)
    };
    let rows = |text: &str| -> Vec<String> {
        (text.lines())
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    let device = "device__attribute_compute_capability_major,\
        device__attribute_compute_capability_minor,device__attribute_multiprocessor_count,\
        device__attribute_l2_cache_size,device__attribute_max_blocks_per_multiprocessor,\
        device__attribute_max_registers_per_block,\
        device__attribute_max_registers_per_multiprocessor,\
        device__attribute_max_shared_memory_per_multiprocessor,\
        device__attribute_reserved_shared_memory_per_block,\
        device__attribute_max_warps_per_multiprocessor,device__attribute_display_name";
    let h100 = "\"9\",\"0\",\"132\",\"52428800\",\"32\",\"65536\",\"65536\",\"233472\",\
        \"1024\",\"32\",\"NVIDIA H100 80GB HBM3\"";
    // scale (correlation 4), axpy (8) and step (101) once each; axpy's second launch not.
    let (traced_rows, counted) = run(
        "sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum",
        None,
    );
    let header = counted.lines().next().unwrap();
    assert!(
        counted.starts_with("# gpulint counters 1, process ")
            && header.contains(", passes 7, profiling ms ")
            && header.ends_with(", profiled launches 3, kernels the budget left 0"),
        "{counted}"
    );
    assert_eq!(
        rows(&counted),
        [
            format!(
                "correlation,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
                 dram__bytes_read.sum,{device}"
            ),
            format!("4,0,1,{h100}"),
            format!("8,100,101,{h100}"),
            format!("101,200,201,{h100}")
        ]
    );
    let replayed: Vec<&str> = (traced_rows.lines())
        .filter(|l| l.contains("scale<4>") || l.contains("jit_"))
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(replayed, ["1", "0"], "{traced_rows}");
    let (_, capped) = run("dram__bytes_read.sum", Some("2"));
    assert_eq!(
        rows(&capped),
        [
            format!("correlation,dram__bytes_read.sum,{device}"),
            format!("4,0,{h100}"),
            format!("8,100,{h100}")
        ]
    );
    let (traced_rows, stopped) = run("dram__bytes_read.sum,x__missing.sum", None);
    assert_eq!(
        rows(&stopped),
        [format!(
            "correlation,dram__bytes_read.sum,x__missing.sum,{device}"
        )]
    );
    assert!(
        stopped.ends_with("# stopped: cuptiProfilerHostConfigAddMetrics returned 1\n"),
        "{stopped}"
    );
    assert_eq!(traced_rows.matches("# end of process").count(), 1);
    assert!(
        !traced_rows.lines().any(|l| l.ends_with(",1")),
        "{traced_rows}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A kernel whose grids shrink, as LU's trailing update's do: its first launch is
/// profiled, then, once the program is steady (no function new for 8 launches), each whose
/// grid is 4 times smaller than every profiled one, up to three launches of it. While new
/// functions still come, their first launches go first: an unlike grid waits (the
/// augmented CNN's forward took the budget its backward's first launches needed,
/// lab/runs/2026-12-06-unlike-waits.txt). NCCL's kernels are never replayed (a
/// collective would wait for ever).
#[test]
fn counters_profile_a_kernels_launches_unlike_those_profiled() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    // a: 4096 blocks (101), 1024 (102) before b is new (103), b's 7 more (104-110), then a
    // at 1024 (111), 256 (112) and 64 (113). Under a window, which repeats nothing (else
    // 113 would be a's first repeat).
    let mut script = vec!["0 4096 _Z1av", "0 1024 _Z1av", "0 64 _Z1bv"];
    script.extend(std::iter::repeat_n("0 64 _Z1bv", 7));
    script.extend(["0 1024 _Z1av", "0 256 _Z1av", "0 64 _Z1av"]);
    let script = script.join("\n") + "\n";
    let window = [("GPULINT_TRACE_WINDOW_S", "60")];
    let counted = scripted_run(&dir, (&tracer, &cupti, &driver), &script, "1", &window);
    // 102 is unlike but came before the program was steady; 113 would be a's fourth pick.
    assert_eq!(
        profiled_ids(&counted),
        ["101", "103", "111", "112"],
        "{counted}"
    );
    let run = |kernel: &str| {
        let env = [
            ("FAKE_DRIVER_REPEATS", "8"),
            ("FAKE_DRIVER_KERNEL", kernel),
            ("FAKE_SHRINKING_GRIDS", "1"),
            ("GPULINT_COUNTER_METRICS", "dram__bytes_read.sum"),
        ];
        counted_run(&dir, &tracer, &cupti, &driver, &env)
    };
    // 8 calls of axpy, 4096 blocks, 1024, 256, ...: the program is not yet steady at the
    // 8th, so only the first call (id 8) is profiled.
    let (traced_rows, counted) = run("_Z4axpyPKfPffi");
    assert_eq!(profiled_ids(&counted), ["8"], "{counted}");
    // The stand-in's one record of axpy has its first call's id: marked as replayed.
    let axpy: Vec<&str> = (traced_rows.lines())
        .filter(|l| l.contains("axpy"))
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(axpy, ["1"], "{traced_rows}");
    let (_, nccl) = run("_Z21ncclDevKernel_Generic24ncclDevKernelArgsStorageILm4096EE");
    assert!(nccl.contains("profiled launches 0"), "{nccl}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Once a program repeats the functions it has (no new one for 8 launches), the tracer
/// profiles a function's next 4 launches, then those at doubling counts, 6 in all, while
/// they have cost under a second (or a quarter of the run), and not under a window: a
/// loop's launches of one grid can differ in work (BFS's levels), and its first says
/// nothing of the rest.
#[test]
fn counters_profile_a_steady_loops_later_launches() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let env = [
        ("FAKE_DRIVER_REPEATS", "70"),
        ("GPULINT_COUNTER_METRICS", "dram__bytes_read.sum"),
    ];
    let (_, counted) = counted_run(&dir, &tracer, &cupti, &driver, &env);
    // Call 1 (id 8); calls 2-8 came before the loop was steady; then calls 9-12 (ids
    // 108-111) in a row, 16 (115) and 32 (131); call 64 would be a seventh repeat.
    let profiled = profiled_ids(&counted);
    assert_eq!(
        profiled,
        ["8", "108", "109", "110", "111", "115", "131"],
        "{counted}"
    );
    // Where a profiled launch takes 0.4 s, the repeats stop once they have cost a second
    // (a quarter of this short run is less): after calls 9, 10 and 11.
    let slow = [env[0], env[1], ("FAKE_DECODE_MS", "400")];
    let (_, counted) = counted_run(&dir, &tracer, &cupti, &driver, &slow);
    let profiled = profiled_ids(&counted);
    assert_eq!(profiled, ["8", "108", "109", "110"], "{counted}");
    // Under a window, none: its cap is for each of a training step's kernels.
    let windowed = [env[0], env[1], ("GPULINT_TRACE_WINDOW_S", "60")];
    let (_, counted) = counted_run(&dir, &tracer, &cupti, &driver, &windowed);
    assert!(
        counted.contains("profiled launches 1, kernels the budget left 0\n"),
        "{counted}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A loop that looks steady early (the augmented CNN's per-image loop, before its model's
/// kernels) repeats at most what the first launches have cost (1 s at least), not a
/// quarter of the run, and leaves the budget to the kernels that come after. Here 4.6 s
/// pass before the first launch and each profiled launch takes 0.4 s: the budget is 5 s +
/// 2.3 s, 19 ranges. The first two kernels cost 0.8 s, under the 1-s floor, so the loop's
/// repeats stop at 3 (1.2 s; a quarter of the run would allow 5), and all 13 later kernels
/// get their first launch, 18 ranges in all (with 5 repeats, 12 would).
#[test]
fn repeats_leave_the_budget_to_kernels_still_to_come() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let mut script = vec!["4600000 64 _Z5firstv".to_string()];
    script.extend(std::iter::repeat_n("0 64 _Z5innerv".to_string(), 20));
    script.extend((0..13).map(|k| format!("0 64 _Z5laterILi{k}EEvv")));
    let script = script.join("\n") + "\n";
    let counted = scripted_run(&dir, (&tracer, &cupti, &driver), &script, "400", &[]);
    // The stand-in numbers the script's launch n (from 0) 101 + n: first is 101, the
    // loop 102-121, the later kernels 122-134.
    let profiled: Vec<u32> = (profiled_ids(&counted).iter())
        .map(|id| id.parse().unwrap())
        .collect();
    let (before, after): (Vec<u32>, Vec<u32>) = profiled.iter().partition(|&&id| id < 122);
    assert_eq!(after, (122..135).collect::<Vec<_>>(), "{counted}");
    // The loop's first launch and 3 repeats, once steady (no new kernel for 8 launches).
    assert_eq!(before, [101, 102, 110, 111, 112], "{counted}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The budget's last 1.5 s are for kernels not yet profiled: a later launch of a profiled
/// kernel may not spend them. Each profiled launch here takes 1.4 s and the budget is
/// about 5 s: a and b (2.8 s); b's next 7 launches make the program steady; a's 4x grid
/// (then 4.2 s); b's 4x grid is turned away (4.2 s + 1.5 s is over 5 s), so that c gets
/// its first launch (without the reserve, b's grid would take it: 5.6 s).
#[test]
fn the_budgets_last_seconds_are_for_kernels_not_yet_profiled() {
    let Some((dir, tracer, cupti, driver)) = build() else {
        return;
    };
    let mut script = vec!["0 64 _Z1av", "0 64 _Z1bv"];
    script.extend(std::iter::repeat_n("0 64 _Z1bv", 7));
    script.extend(["0 256 _Z1av", "0 256 _Z1bv", "0 64 _Z1cv"]);
    let script = script.join("\n") + "\n";
    let counted = scripted_run(&dir, (&tracer, &cupti, &driver), &script, "1400", &[]);
    // The stand-in numbers the script's launches 101-112: a's 4x grid is 110, b's 111.
    assert_eq!(
        profiled_ids(&counted),
        ["101", "102", "110", "112"],
        "{counted}"
    );
    assert!(counted.contains("kernels the budget left 0\n"), "{counted}");
    let _ = std::fs::remove_dir_all(dir);
}
