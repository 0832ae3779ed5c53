//! Roofline placement on the H200 zoo, checked against the roofline section that ncu
//! itself wrote for the same launches (fixtures/h200-zoo/roofline_sections.csv, cut from
//! the shared full_details_all.csv.xz).

mod common;

use std::collections::HashMap;

use common::{fixture, profile};
use gpulint::{Bound, place};

/// (launch, body item label, metric label) -> value in base units.
fn nvidia_roofline() -> HashMap<(u64, String, String), f64> {
    // ncu writes metric rows without the trailing rule columns: ragged rows.
    let mut rdr = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(fixture("h200-zoo/roofline_sections.csv"))
        .unwrap();
    let mut out = HashMap::new();
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let id: u64 = rec[0].parse().unwrap();
        if let Some(v) = base_units(&rec[15], &rec[14]) {
            out.insert((id, rec[12].to_string(), rec[13].to_string()), v);
        }
    }
    out
}

/// NVIDIA's value in base units, read apart from gpulint's reader: its thousands
/// separators dropped and the SI prefix of the units this section uses applied (`inst`,
/// `inst/cycle`, `Kbyte/cycle`, `Gbyte/s`, `Tbyte/s`, `Ghz`).
fn base_units(value: &str, unit: &str) -> Option<f64> {
    let v: f64 = value.replace(',', "").parse().ok()?;
    let scale = match unit.chars().next()? {
        'K' => 1e3,
        'M' => 1e6,
        'G' => 1e9,
        'T' => 1e12,
        _ => 1.0,
    };
    Some(v * scale)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + 1e-9
}

#[test]
fn peaks_and_achieved_values_agree_with_ncus_roofline_section() {
    let nv = nvidia_roofline();
    let p = profile("h200-zoo/full_raw_base.csv");
    let get = |id: u64, item: &str, label: &str| nv[&(id, item.to_string(), label.to_string())];
    let mut compared = 0;
    for l in &p.launches {
        let roof = place(l, None).expect("full export has every roofline input");
        let sp = "Single Precision Roofline";
        let peak_flops = get(l.id, sp, "Theoretical Predicated-On FFMA Operations")
            * get(l.id, sp, "SM Frequency");
        let peak_bw =
            get(l.id, sp, "Theoretical DRAM Bytes Accessible") * get(l.id, sp, "DRAM Frequency");
        // ncu prints clocks to three digits: agreement within 2% is the best possible.
        assert!(
            close(roof.peak_flops, peak_flops, 0.02),
            "{}: {} vs {peak_flops}",
            l.id,
            roof.peak_flops
        );
        assert!(
            close(roof.peak_bytes_per_s, peak_bw, 0.02),
            "{}: {} vs {peak_bw}",
            l.id,
            roof.peak_bytes_per_s
        );
        let av = "Single Precision Achieved Value";
        let flops = get(l.id, av, "Predicated-On FFMA Operations Per Cycle")
            * get(l.id, av, "SM Frequency")
            + (get(
                l.id,
                av,
                "Predicated-On FADD Thread Instructions Executed Per Cycle",
            ) + get(
                l.id,
                av,
                "Predicated-On FMUL Thread Instructions Executed Per Cycle",
            )) * get(l.id, av, "SM Frequency");
        let bw = get(l.id, av, "DRAM Bandwidth");
        assert!(
            close(roof.achieved_bytes_per_s, bw, 0.05),
            "{}: {} vs {bw}",
            l.id,
            roof.achieved_bytes_per_s
        );
        if roof.precision == "fp32" && flops > 1e9 {
            assert!(
                close(roof.achieved_flops, flops, 0.05),
                "{}: {} vs {flops}",
                l.id,
                roof.achieved_flops
            );
            compared += 1;
        }
    }
    assert!(
        compared >= 10,
        "only {compared} launches had FP32 work to compare"
    );
}

#[test]
fn zoo_kernels_land_where_the_readme_says() {
    let p = profile("h200-zoo/full_raw_base.csv");
    let roof = |id: u64| place(p.launches.iter().find(|l| l.id == id).unwrap(), None).unwrap();
    // fma_heavy: compute-bound, near the FP32 roof.
    assert_eq!(roof(25).bound, Bound::Compute);
    assert!(roof(25).pct_of_roof > 80.0);
    // saxpy and copy_vec4: memory-bound, near the bandwidth roof.
    for id in [17, 7] {
        assert_eq!(roof(id).bound, Bound::Memory, "{id}");
        assert!(
            roof(id).pct_of_roof > 65.0,
            "{id}: {}",
            roof(id).pct_of_roof
        );
    }
    // The matmuls: intensity far right of the ridge (caches serve the reuse), and the
    // tiled one at least as intense and faster.
    for id in [26, 27] {
        assert!(
            roof(id).arithmetic_intensity > 10.0 * roof(id).ridge,
            "{id}"
        );
        assert_eq!(roof(id).bound, Bound::Compute);
    }
    assert!(roof(27).achieved_flops > roof(26).achieved_flops);
    // The ridge sits near 14 FLOP/B for FP32 on an H200.
    assert!((13.0..15.0).contains(&roof(0).ridge));
    // Copy kernels move bytes, not FLOPs: HFMA2.MMA moves in copy_strided are not FP16 work.
    assert_eq!(roof(1).precision, "fp32");
}

#[test]
fn table_peaks_stand_in_when_the_export_has_none() {
    // min_details lacks the per-cycle peak metrics of the dfma pipe but carries the rest;
    // --gpu forces the table.
    let p = profile("h200-zoo/full_raw_base.csv");
    let table = gpulint::gpu_peaks("H100 PCIe").unwrap();
    let r = place(&p.launches[17], Some(table)).unwrap();
    assert_eq!(r.peak_bytes_per_s, 2.0e12);
    assert!(r.peaks_from.contains("H100 PCIe"));
}

#[test]
fn roofline_command_csv_and_svg() {
    let dir = common::scratch_dir("roof");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("roofline.svg");
    let out = common::gpulint(&[
        "roofline",
        "fixtures/h200-zoo/full_raw_base.csv",
        "--format",
        "csv",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
    let csv_text = String::from_utf8(out.stdout).unwrap();
    let mut rdr = csv::Reader::from_reader(csv_text.as_bytes());
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    // 28 launches of 22 kernels: each kernel is placed once over all its launches and
    // configurations (copy_coalesced: 3 launches, copy_strided: 5 strides).
    assert_eq!(rows.len(), 22);
    let fma = rows.iter().find(|r| &r[3] == "fma_heavy").unwrap();
    assert_eq!(&fma[10], "compute");
    let copy = rows.iter().find(|r| &r[0] == "0").unwrap();
    assert_eq!(
        &copy[1], "3",
        "launches 0, 6 and the misaligned one are one kernel"
    );
    // What the list says, the CSV carries: the latency-bound tag, the counts behind the
    // intensity, and where the peaks came from.
    let header = rdr.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(&copy[column("latency_bound")], "true");
    assert_eq!(&copy[column("flops")], "0");
    assert!(copy[column("dram_bytes")].parse::<f64>().unwrap() > 0.0);
    assert!(!copy[column("peaks_from")].is_empty());
    insta::assert_snapshot!(csv_text);

    // One rendering: each line of the list is the check report's roofline line for that
    // kernel, with the launch count.
    let human = common::gpulint(&["roofline", "fixtures/h200-zoo/full_raw_base.csv"]);
    let list = String::from_utf8(human.stdout).unwrap();
    // 22 kernels: the check report lists their roofline lines with --verbose.
    let check = common::gpulint(&["check", "fixtures/h200-zoo/full_raw_base.csv", "--verbose"]);
    let report = String::from_utf8(check.stdout).unwrap();
    let section: Vec<&str> = report
        .lines()
        .skip_while(|l| *l != "roofline (DRAM):")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(section.len(), list.lines().count());
    for (from_check, from_list) in section.iter().zip(list.lines()) {
        let placement = |l: &str| {
            let at = l.find("AI ").or_else(|| l.find("no FP work")).unwrap();
            l[at..].to_string()
        };
        assert_eq!(placement(from_check), placement(from_list));
    }
    assert!(list.contains("no FP work") && !list.contains("0.00 FLOP/s"));

    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // The FLOP roofline, and the instruction roofline of the copies (no FP work).
    assert_eq!(chart.matches("<polyline").count(), 2, "one roof per chart");
    assert!(chart.contains("Instruction roofline (kernels with no FP work)"));
    // Kernels with FP work and DRAM traffic are points on the first; those without, on the
    // second; every kernel is in the legend.
    let plotted = rows
        .iter()
        .filter(|r| r[5].parse::<f64>().unwrap() > 0.0)
        .count();
    let (flop_chart, instruction_chart) = chart.split_once("<g transform").unwrap();
    assert_eq!(flop_chart.matches("<circle").count(), plotted);
    assert_eq!(
        instruction_chart.matches("<circle").count(),
        rows.len() - plotted,
        "{instruction_chart}"
    );
    // Points and legend are numbered by launch ID, as the text report is.
    assert!(
        chart.contains(">25</tspan> fma_heavy<")
            && chart.contains("> 0</tspan> copy_coalesced: no FP work<"),
        "{chart}"
    );
    assert!(chart.contains(r#"font-size="11">25</text>"#), "{chart}");
    // The chart never goes over an input.
    let input = dir.join("in.csv");
    std::fs::copy(fixture("h200-zoo/full_raw_base.csv"), &input).unwrap();
    let clash = common::gpulint(&[
        "roofline",
        input.to_str().unwrap(),
        "--svg",
        input.to_str().unwrap(),
    ]);
    assert_eq!(clash.status.code(), Some(2));
}

#[test]
fn a_tensor_gemm_without_the_tensor_metric_has_an_unknown_bound() {
    // A TF32 tensor-core GEMM from the JAX capture: compute-bound by its tensor pipe. Drop
    // that metric, as an export without it would have, and its FP32 counters alone would
    // call it memory-bound; gpulint says the bound is unknown instead.
    let p = common::profile("h200-samples/jax_jit.csv");
    let gemm = p.launches.iter().find(|l| l.id == 33).unwrap();
    let with = gpulint::place(gemm, None).unwrap();
    assert_eq!(with.bound, gpulint::Bound::Compute);
    let mut without = gemm.clone();
    without.metrics.remove("tensor_pipe_pct");
    let r = gpulint::place(&without, None).unwrap();
    assert_eq!(r.bound, gpulint::Bound::Unknown);
    // A memory-bound copy without the metric stays memory-bound: its SM is not busy.
    let zoo = common::profile("h200-zoo/full_raw_base.csv");
    let mut copy = zoo.launches.iter().find(|l| l.id == 0).unwrap().clone();
    copy.metrics.remove("tensor_pipe_pct");
    let r = gpulint::place(&copy, None).unwrap();
    assert_eq!(r.bound, gpulint::Bound::Memory);
}

#[test]
fn gpu_names_must_be_unambiguous_and_a_mismatch_is_said() {
    let out = common::gpulint(&[
        "roofline",
        "fixtures/h200-zoo/full_raw_base.csv",
        "--gpu",
        "A100",
    ]);
    let text = common::transcript(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("could be any of: NVIDIA A100 80GB SXM, NVIDIA A100 40GB"),
        "{text}"
    );
    let out = common::gpulint(&[
        "roofline",
        "fixtures/h200-zoo/full_raw_base.csv",
        "--gpu",
        "H100 PCIe",
    ]);
    let text = common::transcript(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("the profile was made on NVIDIA H200"),
        "{text}"
    );
}

/// The roofline's tags move with the rules' parameters: `--param
/// latency-bound.max_busy_pct=5` stops tagging the zoo's copy of 3 launches (memory 19% of
/// the roof, busiest unit under 40%) latency-bound in the roofline line and the kernel list
/// alike, as the rule stops calling it so.
#[test]
fn the_roofline_tags_follow_the_rules_parameters() {
    let report = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "fixtures/h200-zoo/full_raw_base.csv",
            "--color",
            "never",
            "--exit-zero",
            "--verbose",
        ];
        args.extend(extra);
        String::from_utf8(common::gpulint(&args).stdout).unwrap()
    };
    let tagged = |text: &str| {
        text.lines()
            .filter(|l| l.contains("copy_coalesced") && l.contains("latency-bound"))
            .count()
    };
    assert_eq!(tagged(&report(&[])), 2, "{}", report(&[]));
    let moved = report(&["--param", "latency-bound.max_busy_pct=5"]);
    assert_eq!(tagged(&moved), 0, "{moved}");
    // The tag is the rule's own verdict: with latency-bound not selected, no kernel is
    // called latency-bound.
    let without = report(&["--select", "small-grid,uncoalesced-load"]);
    assert!(!without.contains("latency-bound"), "{without}");
}

/// `gpulint roofline` tags kernels with the bars `check` uses, gpulint.toml's included.
#[test]
fn the_roofline_command_reads_the_configs_bars() {
    let dir = common::scratch_dir("roofline-config");
    std::fs::write(
        dir.join("gpulint.toml"),
        "[params.latency-bound]\nmax_busy_pct = 5\n",
    )
    .unwrap();
    let zoo = common::fixture("h200-zoo/full_raw_base.csv");
    let run = |cwd: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(["roofline", zoo.to_str().unwrap()])
            .current_dir(cwd)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let tagged = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("latency-bound"))
            .map(String::from)
            .collect()
    };
    let default = tagged(&run(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))));
    let configured = tagged(&run(&dir));
    // Only the grid of 8 blocks, whose busiest unit is under 1%, stays under a 5% bar.
    assert!(default.len() > configured.len(), "{default:?}");
    assert_eq!(configured.len(), 1, "{configured:?}");
    assert!(configured[0].contains("copy_gridstride"), "{configured:?}");
}

/// A kernel with no FP work has no place on the FLOP roofline; its instruction issue rate
/// against the SM's issue ceiling is the other axis it is judged on (the instruction
/// roofline). The reduction steps of samples/corpus/reduction.cu on the H200: from 77%
/// (the divergent tree, tagged issue-bound) down to 20% (eight elements per thread).
#[test]
fn kernels_without_fp_work_are_placed_against_the_issue_ceiling() {
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-corpus/min_reduction.csv",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let roof = |prefix: &str| {
        r["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"].as_str().unwrap().starts_with(prefix))
            .unwrap()["roofline"]
            .clone()
    };
    let divergent = roof("reduce_divergent");
    assert!((divergent["instruction_pct_of_roof"].as_f64().unwrap() - 76.7).abs() < 0.1);
    assert!(divergent["issue_slots_pct"].is_number(), "{divergent}");
    let many = roof("reduce_many_per_thread");
    assert!((many["instruction_pct_of_roof"].as_f64().unwrap() - 20.0).abs() < 0.1);
    assert!(many["issue_slots_pct"].is_null(), "{many}");
    // FP kernels keep their FLOP roofline alone.
    let zoo = common::gpulint(&[
        "roofline",
        "fixtures/h200-zoo/full_raw_base.csv",
        "--format",
        "json",
    ]);
    let z: serde_json::Value = serde_json::from_slice(&zoo.stdout).unwrap();
    let fma = z
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with("fma_heavy"))
        .unwrap();
    assert!(
        fma["roofline"]["instruction_pct_of_roof"].is_null(),
        "{fma}"
    );
}

/// Kernels without FP work are placed on the instruction roofline in every output: the
/// compute-side pairs of samples/corpus/compute_classes.cu on the H200. The integer
/// kernels whose SM issues far more than DRAM moves are instruction-bound (never "memory-
/// bound at 6% of roof"); the shift-and-mask torus and the histogram, nearer the DRAM roof,
/// stay memory-bound; the special-function kernels have FP work and keep the FLOP roofline.
#[test]
fn integer_kernels_are_placed_on_the_instruction_roofline() {
    let file = "fixtures/h200-corpus/min_compute_classes.csv";
    let json = common::gpulint(&["roofline", file, "--format", "json"]);
    let kernels: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let bound = |id: u64| {
        let k = kernels
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["launch"] == id)
            .unwrap();
        k["roofline"]["bound"].as_str().unwrap().to_string()
    };
    let bounds: Vec<String> = (0..9).map(bound).collect();
    assert_eq!(
        bounds,
        [
            "instruction",
            "memory",
            "instruction",
            "instruction",
            "compute",
            "compute",
            "instruction",
            "instruction",
            "memory"
        ]
    );
    let divergent = &kernels[6]["roofline"]["instruction_roofline"];
    assert!(divergent["warp_instructions_per_sector"].as_f64().unwrap() > 50.0);
    let human = String::from_utf8(common::gpulint(&["check", file]).stdout).unwrap();
    assert!(
        human.contains("branch_divergent       no FP work:") || human.contains("instruction-bound"),
        "{human}"
    );
    assert!(!human.contains("memory-bound, 6% of roof"), "{human}");
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("r.svg");
    common::gpulint(&["roofline", file, "--svg", svg.to_str().unwrap()]);
    let chart = std::fs::read_to_string(&svg).unwrap();
    let (_, instruction_chart) = chart.split_once("<g transform").unwrap();
    assert_eq!(instruction_chart.matches("<circle").count(), 7);
    assert!(
        instruction_chart.contains("(launch 6)"),
        "{instruction_chart}"
    );
}

/// A kernel far below the DRAM and FP roofs is never called compute- or memory-bound
/// alone: the placement says how far it is from the nearer roof and names the unit it is
/// busiest at, the hierarchy's level it meets (issue 40: a GEMM with a global accumulator,
/// at 2% of the FP32 roof, was "compute-bound").
#[test]
fn far_below_the_roofs_names_the_level_it_meets() {
    let line = |file: &str, kernel: &str| {
        let out = common::gpulint(&["roofline", file]);
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find(|l| l.contains(kernel))
            .unwrap_or_else(|| panic!("{kernel} in {file}"))
            .to_string()
    };
    let gemm = line(
        "fixtures/h200-corpus/min_middle_ground.csv",
        "gemm_global_acc",
    );
    assert!(
        gemm.contains("far below the DRAM and FP roofs, L2 62% busy: 2% of the nearer of the DRAM and FP roofs, the compute roof"),
        "{gemm}"
    );
    let chase = line(
        "fixtures/h200-corpus/min_occupancy_pairs_l2.csv",
        "chase_big_buffer",
    );
    assert!(
        chase.contains("far below the DRAM and FP roofs, L2 76% busy"),
        "{chase}"
    );
    // Near a roof, the side of the ridge stands.
    let fma = line("fixtures/h200-zoo/full_raw_base.csv", "fma_heavy");
    assert!(fma.contains("compute-bound, 87% of roof"), "{fma}");
    // The kernel list's one word says the level.
    let out = common::gpulint(&["check", "fixtures/h200-corpus/min_middle_ground.csv"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("gemm_global_acc  L2-bound (far below the DRAM and FP roofs)"),
        "{text}"
    );
}

/// The hierarchical roofline on the H200 (`gpulint run --all-launches` with L1TEX and L2
/// bytes and their peaks, lab/runs/2026-12-02-lines-and-pairs.txt, expectations written
/// before the capture): each kernel binds at the level its code says.
#[test]
fn the_hierarchical_roofline_names_the_level_each_kernel_binds_at() {
    let binding = |file: &str| -> std::collections::BTreeMap<String, String> {
        let out = common::gpulint(&[
            "check",
            &format!("fixtures/h200-corpus/{file}"),
            "--format",
            "json",
            "--exit-zero",
            "--per-launch",
        ]);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        r["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| {
                let levels = k["roofline"]["hierarchy"].as_array()?;
                assert_eq!(levels.len(), 3, "L1, L2 and DRAM: {k}");
                // The level nearest its bandwidth roof; "FP" when every level is past
                // its ridge.
                let nearest = levels
                    .iter()
                    .filter(|l| l["past_ridge"] == false)
                    .max_by(|a, b| {
                        a["pct_of_roof"]
                            .as_f64()
                            .unwrap()
                            .total_cmp(&b["pct_of_roof"].as_f64().unwrap())
                    })
                    .map_or("FP".to_string(), |l| {
                        l["level"].as_str().unwrap().to_string()
                    });
                let name = gpulint_base(k["name"].as_str().unwrap());
                Some((name, nearest))
            })
            .collect()
    };
    let pairs = binding("hier_heldout_pairs.csv");
    for streaming in [
        "copy_stride3",
        "copy_unit",
        "aos_xy",
        "soa_xy",
        "row_sum_warp",
        "index_shift",
    ] {
        assert_eq!(pairs[streaming], "DRAM", "{streaming}: {pairs:?}");
    }
    // Random gathers in an 8 MiB table: the L2 serves them.
    for gathers in ["chase_one", "chase_four", "chase_smem"] {
        assert_eq!(pairs[gathers], "L2", "{gathers}: {pairs:?}");
    }
    // out[i] read and written every tap: the L2 carries it.
    assert_eq!(pairs["conv_global_acc"], "L2");
    let middle = binding("hier_middle_ground.csv");
    assert_eq!(middle["gemm_global_acc"], "L2", "{middle:?}");
    let matmul = binding("hier_matmul_variants.csv");
    // Register-tiled GEMMs are past every level's ridge: the FP roof binds.
    assert_eq!(matmul["matmul_regtile"], "FP", "{matmul:?}");
    // Expected L1, found L2: the naive loop's L1 limit is its request rate (the load/store
    // pipe 97% busy, which the tag names), not L1's byte bandwidth (8% of it).
    assert_eq!(matmul["matmul_naive"], "L2", "{matmul:?}");
}

fn gpulint_base(name: &str) -> String {
    gpulint::base_name(name)
}

/// The chart draws L1's and L2's bandwidth slopes and each kernel's marks against them.
#[test]
fn the_chart_draws_the_cache_levels() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("r.svg");
    let out = common::gpulint(&[
        "roofline",
        "fixtures/h200-corpus/hier_middle_ground.csv",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("Roofline (hierarchical)"), "{text}");
    assert!(
        text.contains(" L1</text>") && text.contains(" L2</text>"),
        "{text}"
    );
    assert!(text.contains("against L2: 30% of its roof"), "{text}");
    // Without the cache levels' bytes, the plain DRAM roofline.
    let plain = dir.path().join("p.svg");
    common::gpulint(&[
        "roofline",
        "fixtures/h200-corpus/full_middle_ground.csv",
        "--svg",
        plain.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read_to_string(&plain)
            .unwrap()
            .contains("Roofline (DRAM)")
    );
}

/// cuDNN's tensor-core convolutions in the CNN's run on the H200
/// (fixtures/h200-by-time/default_cnn3.csv): the FLOP counters miss tensor-core work, so
/// the placement gives no intensity and no FLOP rate for them (it printed "AI 0.01 FLOP/B,
/// compute-bound, 6.94 GFLOP/s tensor"), and the chart does not put them where their
/// FP32 counts alone would: they are listed beside it, with their tensor pipe.
#[test]
fn tensor_core_kernels_get_no_intensity_from_the_fp_counters() {
    let file = "fixtures/h200-by-time/default_cnn3.csv";
    let human = String::from_utf8(common::gpulint(&["check", file, "--exit-zero"]).stdout).unwrap();
    let tensor: Vec<&str> = human
        .lines()
        .filter(|l| l.contains("tensor pipe") && l.contains("% of roof"))
        .collect();
    assert_eq!(tensor.len(), 4, "{human}");
    for line in &tensor {
        assert!(line.contains("tensor cores, AI not measured"), "{line}");
        assert!(
            !line.contains("FLOP/s tensor") && !line.contains("(AI "),
            "{line}"
        );
    }
    let dir = common::scratch_dir("tensor-roof");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("r.svg");
    common::gpulint(&["roofline", file, "--svg", svg.to_str().unwrap()]);
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(chart.matches("FLOPs uncounted").count(), 4, "{chart}");
    // 12 kernels, 4 of them on the tensor cores: 8 points.
    let plotted: std::collections::BTreeSet<&str> = chart
        .match_indices("(launch ")
        .map(|(at, _)| chart[at..].split(')').next().unwrap())
        .collect();
    assert_eq!(plotted.len(), 8, "{plotted:?}");
}

/// Every CSV fixture `check` reads, with its JSON report.
fn every_fixture_report() -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(fixture("")).unwrap().flatten() {
        let Ok(files) = std::fs::read_dir(dir.path()) else {
            continue;
        };
        for f in files.flatten() {
            let path = f.path();
            let name = path.to_string_lossy().into_owned();
            if !name.ends_with(".csv") || name.ends_with(".trace.csv") {
                continue;
            }
            let run = common::gpulint(&["check", &name, "--format", "json", "--exit-zero"]);
            if run.status.code() != Some(0) {
                continue; // not an export check reads (a page of another kind)
            }
            out.push((name, serde_json::from_slice(&run.stdout).unwrap()));
        }
    }
    assert!(out.len() > 50, "{} fixtures", out.len());
    out
}

/// One judge of one verdict: the roofline tags a kernel latency-, load/store-, issue-,
/// pipe- or atomics-bound exactly where the linter reports that rule on it (any
/// severity), or a finding that is its cause (`explains`: a one-block step is
/// latency-bound, and its finding is small-grid), over every fixture. Before, the tags
/// re-ran each rule apart from the engine: the zoo's copy_gridstride, copy_coalesced,
/// smem_heavy and reg_heavy<160> were latency-bound on the chart with no finding saying so.
#[test]
fn the_roofline_and_the_findings_never_disagree_on_a_bound() {
    let tags = [
        ("latency_bound", &["latency-bound", "serial-loads"][..]),
        ("load_store_pipe_pct", &["load-store-bound"][..]),
        ("issue_slots_pct", &["issue-bound"][..]),
        ("pipe_pct", &["pipe-bound"][..]),
        ("atomic_slice_pct", &["contended-atomics"][..]),
    ];
    let mut compared = 0;
    for (file, report) in every_fixture_report() {
        let findings = report["findings"].as_array().unwrap();
        for k in report["kernels"].as_array().unwrap() {
            let roof = &k["roofline"];
            if roof.is_null() {
                continue;
            }
            let name = k["name"].as_str().unwrap();
            for (tag, rules) in tags {
                let tagged = match &roof[tag] {
                    serde_json::Value::Bool(b) => *b,
                    v => !v.is_null(),
                };
                // Its own finding, or a finding whose cause it is (`explains`).
                let reported = findings.iter().any(|f| {
                    f["kernel"] == name
                        && rules.iter().any(|r| {
                            f["rule"] == *r
                                || f["explains"]
                                    .as_array()
                                    .is_some_and(|e| e.contains(&(*r).into()))
                        })
                });
                compared += 1;
                if tagged {
                    assert!(
                        reported,
                        "{file}: {name} is {tag} on the roofline, with no finding of {rules:?}"
                    );
                }
                // A finding on some of a kernel's configurations tags those only; and the
                // atomics roof, where it is the roof, stands for latency (its wait).
                let atomics_roof = tag == "latency_bound" && !roof["atomic_slice_pct"].is_null();
                if reported
                    && !atomics_roof
                    && k["launch_count"] == 1
                    && report["kernels"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|o| o["name"] == name)
                        .count()
                        == 1
                {
                    assert!(
                        tagged,
                        "{file}: {name} has a {rules:?} finding, and the roofline no {tag}"
                    );
                }
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}
