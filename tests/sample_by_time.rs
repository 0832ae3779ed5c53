//! The sample by time against profiling every launch, on real H200 captures that profiled
//! every launch: `gpulint run --time-all-launches` with a stand-in ncu whose timing pass
//! is the capture (every launch and its duration) and whose profile is the capture cut
//! down to the launches gpulint asked for, as ncu's `--kernel-id :::N1|N2|...` takes
//! them (each kernel's launches with those numbers, counted by demangled name). The
//! cut is made here, from the arguments gpulint passed, not by gpulint's own code.
// Linux only: `gpulint run` with the stand-in ncu, a bash script.
#![cfg(target_os = "linux")]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    check_json, cut_to_kernel_id, fixture, json_report, kernel_id_numbers, kernel_shares,
    transcript, warnings_of,
};

fn stand_in(name: &str) -> String {
    format!("{}/tests/stand-in/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `gpulint run --time-all-launches` on the stand-in program, with `every` as the timing
/// pass and `profiled` as what ncu profiled; returns the report and ncu's arguments for
/// the profiled run.
fn run(every: &Path, profiled: &Path, extra: &[&str]) -> (serde_json::Value, Vec<String>) {
    let scratch = common::scratch_dir("by-time");
    let record = scratch.join("args");
    let sample = stand_in("sample");
    let mut args = vec![
        "run",
        "--time-all-launches",
        "--format",
        "json",
        "--exit-zero",
    ];
    args.extend(extra);
    args.extend(["--", sample.as_str()]);
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_RECORD", &record)
        .env("FAKE_NCU_TIMING", every)
        .env("FAKE_NCU_REPLAY", profiled)
        .env("GPULINT_LAUNCH_TRACER", "off")
        .output()
        .unwrap();
    // The second call is the profiled run (the first, the timing pass).
    let calls = std::fs::read_to_string(&record).unwrap_or_default();
    let ncu_args: Vec<String> = calls
        .split("--END--\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no profiled run: {}", transcript(&out)))
        .lines()
        .map(String::from)
        .collect();
    (json_report(&out), ncu_args)
}

/// What the sample by time gave on one capture of every launch.
struct Compared {
    numbers: BTreeSet<u64>,
    profiled: usize,
    launches: u64,
    sampled: serde_json::Value,
    every: serde_json::Value,
}

impl Compared {
    /// The sample gives the warnings (kernel and rule) that every launch gives.
    fn assert_warns_as_every_launch(&self, capture: &str) {
        assert_eq!(
            warnings_of(&self.sampled),
            warnings_of(&self.every),
            "{capture}: {} of {} launches profiled",
            self.profiled,
            self.launches
        );
    }
}

/// Plans the sample from the capture (first run: only ncu's arguments matter), cuts the
/// capture to what ncu would have profiled, and runs again on the cut.
fn compare(capture: &str, extra: &[&str]) -> Compared {
    let every = fixture(capture);
    let (_, ncu_args) = run(&every, &every, extra);
    let numbers = kernel_id_numbers(&ncu_args);
    let scratch = common::scratch_dir("by-time-cut");
    let cut_path: PathBuf = scratch.join("cut.csv");
    let profiled = cut_to_kernel_id(&every, &numbers, None, &cut_path);
    let (sampled, again) = run(&every, &cut_path, extra);
    assert_eq!(
        kernel_id_numbers(&again),
        numbers,
        "the plan is the same run to run"
    );
    let every_report = check_json(&every);
    Compared {
        numbers,
        profiled,
        launches: every_report["sources"][0]["launch_count"].as_u64().unwrap(),
        sampled,
        every: every_report,
    }
}

/// Captures of every launch (or of a program's first launches, `min_`), with each
/// launch's duration.
const EVERY_LAUNCH: [&str; 7] = [
    "h200-corpus/all_lud.csv",
    "h200-corpus/min_bfs.csv",
    "h200-corpus/min_gaussian.csv",
    "h200-corpus/min_cg_solver.csv",
    "h200-samples/torch_train.csv",
    "h200-corpus/all_template_phases.csv",
    "h200-corpus/all_graph_steps.csv",
];

/// Every capture of every launch the H200 made: LU (190 launches, a grid shrinking every
/// launch), BFS (a frontier whose time comes late), Gaussian elimination, the CG solver,
/// a PyTorch training loop (1,450 launches), template instances and a CUDA graph. The
/// sample by time gives the warnings of every launch, with each kernel's share within 5
/// points, and profiles at most the default 40 launches.
#[test]
fn the_sample_by_time_warns_as_every_launch_does() {
    for capture in EVERY_LAUNCH {
        let c = compare(capture, &[]);
        assert!(c.profiled <= 40, "{capture}: {} profiled", c.profiled);
        assert!(
            (c.profiled as u64) < c.launches || c.launches <= 40,
            "{capture}: {} of {}",
            c.profiled,
            c.launches
        );
        c.assert_warns_as_every_launch(capture);
        let (sampled, every) = (kernel_shares(&c.sampled), kernel_shares(&c.every));
        for (kernel, share) in &every {
            let off = (sampled.get(kernel).copied().unwrap_or(0.0) - share).abs();
            assert!(
                off < 5.0,
                "{capture}: {kernel} {share:.1}% of every launch, {off:.1} off"
            );
        }
        let source = &c.sampled["sources"][0];
        assert_eq!(source["sample"], "by-time", "{capture}");
        let covered = source["profiled_share_of_gpu_time_pct"].as_f64().unwrap();
        assert!(covered >= 99.0, "{capture}: {covered}% covered");
    }
}

/// BFS's every launch, with today's metrics (`gpulint run --all-launches` on the H200,
/// lab/runs/2026-12-05-augment.txt): serial-loads holds on Kernel's 22-us level alone (1 of
/// 11), between the short levels (latency-bound) and the long ones, whose gathers are
/// uncoalesced. The default cap of a program this short is 8 launches; the median and
/// longest of each kernel take 4 of them, and the launches left go to the octaves of
/// Kernel's durations, the 22-us level's among them.
#[test]
fn launches_the_cap_leaves_go_to_the_octaves_of_a_kernels_durations() {
    let c = compare("h200-by-time/all_bfs.csv", &["--max-launches", "8"]);
    assert!(c.profiled <= 8, "{} profiled", c.profiled);
    let rules: BTreeSet<String> = warnings_of(&c.every).into_iter().map(|w| w.1).collect();
    assert!(rules.contains("serial-loads"), "{rules:?}");
    c.assert_warns_as_every_launch("h200-by-time/all_bfs.csv");
}

/// What the sample leaves out is stated: the share it profiled, and the configurations
/// below the cut by kernel, the most GPU time first. A cap of 8 on the training loop,
/// whose timing pass gives no mangled names (so a launch number costs every kernel that
/// reaches it: 21 for a step's), is kept by taking numbers only the kernels launched
/// twice a step reach.
#[test]
fn the_report_states_the_share_profiled_and_what_was_left_out() {
    let c = compare("h200-samples/torch_train.csv", &["--max-launches", "8"]);
    assert!(c.profiled <= 8, "{} profiled", c.profiled);
    assert!(c.numbers.iter().all(|&n| n > 60), "{:?}", c.numbers);
    let source = &c.sampled["sources"][0];
    let covered = source["profiled_share_of_gpu_time_pct"].as_f64().unwrap();
    let left_out = source["not_profiled"].as_array().unwrap();
    assert!(!left_out.is_empty());
    let left_share: f64 = left_out
        .iter()
        .map(|l| l["share_of_gpu_time_pct"].as_f64().unwrap())
        .sum();
    assert!(
        (covered + left_share - 100.0).abs() < 0.01,
        "{covered} + {left_share}"
    );
    let shares: Vec<f64> = left_out
        .iter()
        .map(|l| l["share_of_gpu_time_pct"].as_f64().unwrap())
        .collect();
    assert!(shares.windows(2).all(|w| w[0] >= w[1]), "{shares:?}");
}

/// `gpulint run` with its defaults on the H200, kept with `--save-csv` (the export, the
/// launch trace and the sample's record: fixtures/h200-by-time, lab/runs/2026-12-02-cost.txt)
/// and read back as the run's report. BFS and the wavefront warn as every launch of the
/// same program does (min_bfs.csv, min_nw.csv), from 4 and 11 profiled launches. The
/// PyTorch transformer (samples/apps/torch_transformer.py) gives what its header expected
/// before it was profiled: its fp32 GEMMs on the CUDA cores, and nothing else.
#[test]
fn runs_on_the_h200_warn_as_every_launch_does() {
    for (run, every) in [
        ("bfs", "h200-corpus/min_bfs.csv"),
        ("nw", "h200-corpus/min_nw.csv"),
    ] {
        let sampled = check_json(&fixture(&format!("h200-by-time/default_{run}.csv")));
        let source = &sampled["sources"][0];
        assert_eq!(source["sample"], "by-time", "{run}");
        assert!(source["profiled_launches"].as_u64().unwrap() <= 12, "{run}");
        let every = check_json(&fixture(every));
        assert_eq!(warnings_of(&sampled), warnings_of(&every), "{run}");
    }
    let transformer = check_json(&fixture("h200-by-time/default_transformer.csv"));
    let rules: BTreeSet<String> = warnings_of(&transformer).into_iter().map(|w| w.1).collect();
    assert_eq!(
        rules,
        BTreeSet::from(["fp32-gemm-on-cuda-cores".to_string()])
    );
    let source = &transformer["sources"][0];
    assert_eq!(source["counted_launches"].as_u64(), Some(2874));
    let covered = source["profiled_share_of_gpu_time_pct"].as_f64().unwrap();
    assert!(covered > 50.0 && covered < 100.0, "{covered}");
    assert!(!source["not_profiled"].as_array().unwrap().is_empty());
}

/// The CNN fed by a per-sample augmentation loop (samples/apps/torch_cnn_augment.py, 2
/// steps), kept from a default `gpulint run` on the H200 (lab/runs/2026-12-05-augment.txt)
/// and read back: what its header expected before it was profiled, launch-bound on the
/// augmentation loop's launches (from the trace) and the model's three counter warnings
/// (from the sample). Every launch of the same program under ncu gave the three, and no
/// launch-bound: `--all-launches` runs no trace, so nothing measures the waits.
#[test]
fn a_per_sample_augmentation_loop_is_launch_bound() {
    let sampled = check_json(&fixture("h200-by-time/default_augment_2.csv"));
    let rules: BTreeSet<String> = warnings_of(&sampled).into_iter().map(|w| w.1).collect();
    let expected = [
        "launch-bound",
        "fp32-gemm-on-cuda-cores",
        "uncoalesced-load",
        "misaligned-access",
    ];
    assert_eq!(rules, expected.iter().map(|r| r.to_string()).collect());
}

/// A transformer with attention written by hand (samples/apps/torch_attention.py, 3
/// steps), kept from a default `gpulint run` on the H200 (lab/runs/2026-12-05-augment.txt,
/// call 3): 8 launches profiled, 46.7% of the GPU time, and still the SDPA advice, which
/// #58 found lost by a default sample: the softmax beside batched GEMMs is judged on every
/// traced launch, here on a kernel the sample left out. Its FP32 GEMMs warn from the
/// profiled launch.
#[test]
fn hand_written_attention_is_found_on_kernels_the_sample_left_out() {
    let sampled = check_json(&fixture("h200-by-time/default_attention.csv"));
    let rules: BTreeSet<String> = warnings_of(&sampled).into_iter().map(|w| w.1).collect();
    let expected = ["fp32-gemm-on-cuda-cores", "manual-attention"];
    assert_eq!(rules, expected.iter().map(|r| r.to_string()).collect());
    let attention = (sampled["findings"].as_array().unwrap().iter())
        .find(|f| f["rule"] == "manual-attention" && f["severity"] == "warning")
        .unwrap();
    assert_eq!(
        attention["profiled_launch_count"].as_u64(),
        Some(0),
        "{attention}"
    );
}

/// The same script at 1 step on an H100 (fixtures/h100-by-time/, whose README has the
/// run): ATen's direct-copy kernel ran 4 strided copies of 35 us and 24 contiguous ones of
/// 12-18 us in one configuration, and the sample profiled a strided one. Every launch
/// profiled, in the same call, warned the FP32 GEMMs and the hand-written attention only,
/// the strided copies' loads info. The sampled copy's counters speak for the launches near
/// its duration, so its gather covers those and is info as well, while its kernel's row
/// counts all 28 launches and a rule judged from the trace (the GEMM's) covers all of its
/// kernel's.
#[test]
fn a_sampled_launchs_counters_stake_only_the_launches_like_it() {
    let sampled = check_json(&fixture("h100-by-time/default_attention1.csv"));
    let rules: BTreeSet<String> = warnings_of(&sampled).into_iter().map(|w| w.1).collect();
    let expected = ["fp32-gemm-on-cuda-cores", "manual-attention"];
    assert_eq!(rules, expected.iter().map(|r| r.to_string()).collect());
    let findings = sampled["findings"].as_array().unwrap();
    let on = |rule: &str, kernel: &str| {
        (findings.iter())
            .find(|f| f["rule"] == rule && f["kernel"].as_str().unwrap().contains(kernel))
            .unwrap_or_else(|| panic!("no {rule} on {kernel}"))
    };
    let gather = on("uncoalesced-load", "direct_copy_kernel_cuda");
    assert_eq!(gather["severity"], "info", "{gather}");
    assert_eq!(gather["launch_count"], 5, "{gather}");
    let copies = (sampled["kernels"].as_array().unwrap().iter())
        .find(|k| k["name"] == gather["kernel"])
        .unwrap();
    assert_eq!(copies["launch_count"], 28);
    let gemm = on("fp32-gemm-on-cuda-cores", "tilesize128x128x8");
    assert_eq!(gemm["launch_count"], 12, "{gemm}");
}

/// The CNN with cuDNN and torch.compile (samples/apps/torch_cnn.py, 3 steps), kept from a
/// default `gpulint run` on the H200, against every launch of the same run
/// (`cost_check.sh smoke`, lab/runs/2026-12-03-launch-count.txt). The C++ runtime could not
/// demangle one of cuDNN's CUTLASS kernels, so the trace names it mangled where ncu names
/// it demangled: the two still pair, its 3 launches count as one kernel's, and the sample
/// warns as every launch does. The kernels it left out are not said to lack metrics.
#[test]
fn a_kernel_the_trace_names_mangled_pairs_with_ncus_name() {
    let out = common::gpulint(&[
        "check",
        fixture("h200-by-time/default_cnn3.csv").to_str().unwrap(),
        "--format",
        "json",
        "--exit-zero",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("pairs with"), "{stderr}");
    let sampled: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let source = &sampled["sources"][0];
    let left_out = source["not_profiled"].as_array().unwrap();
    assert!(
        left_out
            .iter()
            .all(|k| !k["kernel"].as_str().unwrap().starts_with("_Z")),
        "{left_out:?}"
    );
    let conv = (sampled["kernels"].as_array().unwrap().iter())
        .find(|k| (k["name"].as_str().unwrap()).contains("ImplicitGemmConvolution"))
        .unwrap();
    assert_eq!(conv["launch_count"].as_u64(), Some(3));
    // The kernels the sample left out are listed as not profiled, not as skipped checks
    // for metrics the export lacks (379 of 406 skipped checks before).
    let profiled: BTreeSet<&str> = (sampled["kernels"].as_array().unwrap().iter())
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    for skip in sampled["skipped"].as_array().unwrap() {
        assert!(
            profiled.contains(skip["kernel"].as_str().unwrap()),
            "{skip}"
        );
    }
    let every = check_json(&fixture("h200-by-time/all_cnn3.csv"));
    assert_eq!(warnings_of(&sampled), warnings_of(&every));
    assert_eq!(warnings_of(&every).len(), 3);
}

/// The default cap's floor, 12 launches (what a program of under ~16 s gets), warns as
/// every launch does on every capture of every launch, even through a timing pass, whose
/// unmangled names make a launch number cost every kernel that reaches it; and so did 8,
/// the floor until 2026-12-05. At 6, the CG solver's uncoalesced SpMV goes unprofiled.
#[test]
fn the_fewest_launches_by_default_warn_as_every_launch_does() {
    let more = [
        "h200-corpus/min_nw.csv",
        "h200-corpus/min_knn.csv",
        "h200-corpus/min_particlefilter.csv",
        "h200-corpus/min_matmul_variants.csv",
    ];
    for capture in EVERY_LAUNCH.into_iter().chain(more) {
        for cap in [12, 8] {
            let c = compare(capture, &["--max-launches", &cap.to_string()]);
            assert!(
                c.profiled <= cap,
                "{capture}: {} profiled of {cap}",
                c.profiled
            );
            c.assert_warns_as_every_launch(capture);
        }
    }
}

/// The headline's GPU time counts the kernels a sample by time left out (in no kernel's
/// share), while the profile holds only the profiled kernels' launches: the headline says
/// whose launches it counts, and over how many the time is. The transformer's sample left
/// whole kernels out; the wavefront's profiled both of its kernels, whose launches are
/// every launch, and keeps the plain form.
#[test]
fn the_headline_says_whose_launches_it_counts() {
    let headline = |name: &str| {
        let out = common::gpulint(&[
            "check",
            fixture(&format!("h200-by-time/default_{name}.csv"))
                .to_str()
                .unwrap(),
            "--exit-zero",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines().next().unwrap_or_default().to_string()
    };
    let json = check_json(&fixture("h200-by-time/default_transformer.csv"));
    let kernels = json["kernels"].as_array().unwrap();
    let launches: u64 = kernels
        .iter()
        .map(|k| k["launch_count"].as_u64().unwrap())
        .sum();
    let names: BTreeSet<&str> = kernels
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    let all = json["sources"][0]["counted_launches"].as_u64().unwrap();
    assert!(launches < all, "{launches} of {all}");
    let transformer = headline("transformer");
    let expected = format!(
        "profile: {launches} launch(es) of the {} kernel(s) profiled, ",
        names.len()
    );
    assert!(transformer.starts_with(&expected), "{transformer}");
    assert!(
        transformer.ends_with(&format!("of GPU time over all {all} launches")),
        "{transformer}"
    );
    let nw = headline("nw");
    assert!(
        nw.starts_with("profile: 63 launch(es) of 2 kernel(s), "),
        "{nw}"
    );
    assert!(!nw.contains("over all"), "{nw}");
}

/// small-grid's stake is capped by the busiest unit's headroom, as the occupancy rules'
/// are: more warps hide latency only until a unit saturates. The transformer's cuBLAS
/// GEMMs of 128 blocks run at 73-86% of their busiest unit, and their small-grid findings
/// (judged on every traced launch, which take their sampled launch's throughputs in the
/// same configuration) stake no more than that headroom of each configuration's time;
/// without the cap they staked 76% of it (lab/runs/2026-12-03-small-grid-stake.txt).
#[test]
fn small_grid_stakes_no_more_than_the_busiest_units_headroom() {
    let json = check_json(&fixture("h200-by-time/default_transformer.csv"));
    let kernels = json["kernels"].as_array().unwrap();
    // The profiled kernels' findings: those the sample left out have no throughputs, and
    // no such cap.
    let findings: Vec<&serde_json::Value> = (json["findings"].as_array().unwrap().iter())
        .filter(|f| f["rule"] == "small-grid")
        .filter(|f| kernels.iter().any(|k| k["name"] == f["kernel"]))
        .collect();
    assert_eq!(findings.len(), 4, "{findings:#?}");
    for f in findings {
        let headroom_time: f64 = (kernels.iter())
            .filter(|k| k["name"] == f["kernel"])
            .map(|k| {
                let m = &k["metrics"];
                let time = m["duration_ns"].as_f64().unwrap() * k["launch_count"].as_f64().unwrap();
                time * (1.0 - m["busiest_throughput_pct"].as_f64().unwrap() / 100.0)
            })
            .sum();
        let stake = f["time_at_stake_ns"].as_f64().unwrap();
        assert!(
            stake > 0.0 && stake <= headroom_time * 1.001,
            "{stake} > {headroom_time}: {f}"
        );
    }
}

/// A kernel the sample by time left out is judged on its traced launches by the
/// launch-shape rules; its share of the GPU time is those launches' time, never 0%. The CG
/// solver's cg_scalars (one thread a launch, 40 launches, 4.4% of the GPU time by the
/// run's own record) was reported as info, "0.00% of the profile's GPU time, under 1%".
#[test]
fn a_kernel_left_out_of_the_sample_keeps_its_share_of_the_time() {
    let json = check_json(&fixture("h200-by-time/default_cg_solver.csv"));
    let left_out = json["sources"][0]["not_profiled"].as_array().unwrap();
    let scalars = (left_out.iter())
        .find(|k| k["kernel"].as_str().unwrap().starts_with("cg_scalars"))
        .expect("cg_scalars left out of the sample");
    assert!(scalars["share_of_gpu_time_pct"].as_f64().unwrap() > 1.0);
    let findings: Vec<&serde_json::Value> = (json["findings"].as_array().unwrap().iter())
        .filter(|f| f["kernel"].as_str().unwrap().starts_with("cg_scalars"))
        .collect();
    assert!(!findings.is_empty(), "no finding on cg_scalars");
    for f in findings {
        assert_eq!(f["severity"], "warning", "{f}");
        let notes = f["notes"].to_string();
        assert!(!notes.contains("0.00%"), "{notes}");
    }
}

/// The launch-shape rules judge every traced launch, those of a kernel the sample left out
/// too: its launches carry the device's shape (every sampled launch ran on the same GPU),
/// so small-grid judges their grids. LU's sample here left out lud_internal, whose last 16
/// launches have grids of 1 to 256 blocks: small-grid warns on them, as profiling every
/// launch of LU does (h200-corpus/all_lud.csv), where it had been silent.
#[test]
fn small_grid_judges_the_kernels_the_sample_left_out() {
    let sampled = check_json(&fixture("h200-by-time/default_lud.csv"));
    let left_out = sampled["sources"][0]["not_profiled"].as_array().unwrap();
    assert!(
        (left_out.iter()).any(|k| k["kernel"].as_str().unwrap().starts_with("lud_internal")),
        "{left_out:?}"
    );
    let on_internal = |json: &serde_json::Value| {
        (json["findings"].as_array().unwrap().iter()).any(|f| {
            f["rule"] == "small-grid" && f["kernel"].as_str().unwrap().starts_with("lud_internal")
        })
    };
    assert!(on_internal(&check_json(&fixture(
        "h200-corpus/all_lud.csv"
    ))));
    assert!(on_internal(&sampled), "{:#?}", sampled["findings"]);
}

/// Every format says which kernels the sample left out, with their share and why: the
/// CNN's saved run (fixtures/h200-by-time/default_cnn3.csv) left out kernels past the
/// launch cap, a configuration of a profiled kernel, and kernels under 1% of the time.
/// JSON gives each one's why.
#[test]
fn every_format_says_what_was_left_out_and_why() {
    let file = fixture("h200-by-time/default_cnn3.csv");
    let file = file.to_str().unwrap();
    let json = check_json(&fixture("h200-by-time/default_cnn3.csv"));
    let left = json["sources"][0]["not_profiled"].as_array().unwrap();
    let why = |l: &serde_json::Value| l["why"].as_str().unwrap().to_string();
    let reasons: BTreeSet<String> = left.iter().map(why).collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    let top = &left[0];
    assert!(why(top).starts_with("past the launch cap"), "{top}");
    let name = gpulint::short_name(top["kernel"].as_str().unwrap());
    for format in ["human", "concise", "markdown", "github", "sarif", "html"] {
        let out = common::gpulint(&["check", file, "--format", format, "--exit-zero"]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", transcript(&out));
        // GitHub's workflow commands escape `%` as `%25`, HTML `<` and `>`.
        let text = (String::from_utf8_lossy(&out.stdout))
            .replace("%25", "%")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        for said in [
            "not profiled, past the launch cap",
            "under 1% of the GPU time",
            &name,
        ] {
            assert!(text.contains(said), "{format} lacks {said:?}: {text}");
        }
    }
}
