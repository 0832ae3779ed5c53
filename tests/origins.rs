//! Real application profiles captured on an H200 (samples/apps, via samples/run_on_gpu.sh):
//! PyTorch eager and torch.compile, a cuDNN convolution with batch norm in NCHW and
//! channels_last, and a JAX jit program. gpulint must know whose kernel each is, keep
//! library internals out of the warnings, name the call to change, and rank by time.

mod common;

use common::{gpulint, transcript};
use serde_json::Value;

fn json(file: &str, extra: &[&str]) -> Value {
    let path = format!("fixtures/h200-samples/{file}");
    let mut args = vec!["check", path.as_str(), "--format", "json", "--exit-zero"];
    args.extend_from_slice(extra);
    let out = gpulint(&args);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn origin_of(v: &Value, prefix: &str) -> (String, String) {
    let k = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| {
            k["name"]
                .as_str()
                .unwrap()
                .trim_start_matches("void ")
                .starts_with(prefix)
        })
        .unwrap_or_else(|| panic!("no kernel {prefix}"));
    (
        k["origin"]["kind"].as_str().unwrap().into(),
        k["origin"]["name"].as_str().unwrap().into(),
    )
}

fn pair(kind: &str, name: &str) -> (String, String) {
    (kind.into(), name.into())
}

#[test]
fn every_kernel_gets_its_origin() {
    let eager = json("torch_eager.csv", &[]);
    assert_eq!(
        origin_of(&eager, "sm80_xmma_gemm"),
        pair("library", "cuBLAS")
    );
    assert_eq!(
        origin_of(&eager, "at::elementwise_kernel"),
        pair("library", "PyTorch ATen")
    );
    assert_eq!(
        origin_of(&eager, "at::index_elementwise_kernel"),
        pair("library", "PyTorch ATen")
    );
    let compiled = json("torch_compile.csv", &[]);
    assert_eq!(origin_of(&compiled, "triton_"), pair("generated", "Triton"));
    let nchw = json("cudnn_nchw.csv", &[]);
    assert_eq!(
        origin_of(&nchw, "sm80_xmma_fprop_implicit_gemm"),
        pair("library", "cuDNN")
    );
    assert_eq!(
        origin_of(&nchw, "cudnn::bn_fw_tr"),
        pair("library", "cuDNN")
    );
    assert_eq!(
        origin_of(&nchw, "engines_precompiled::nchwToNhwcKernel"),
        pair("library", "cuDNN")
    );
    let jax = json("jax_jit.csv", &[]);
    assert_eq!(
        origin_of(&jax, "loop_multiply_fusion"),
        pair("generated", "XLA")
    );
    assert_eq!(
        origin_of(&jax, "gemm_fusion_dot_general"),
        pair("generated", "XLA")
    );
    assert_eq!(
        origin_of(&jax, "stream_executor::RedzoneAllocatorKernelImpl"),
        pair("helper", "XLA autotuner")
    );
}

#[test]
fn library_internals_are_info_and_call_sites_stay_warnings_naming_the_call() {
    let nchw = json("cudnn_nchw.csv", &[]);
    let findings = nchw["findings"].as_array().unwrap();
    let conv = findings
        .iter()
        .find(|f| {
            f["rule"] == "register-limited-occupancy"
                && f["kernel"]
                    .as_str()
                    .unwrap()
                    .contains("fprop_implicit_gemm")
        })
        .expect("the cuDNN conv is register-limited");
    assert_eq!(conv["severity"], "info");
    // The help names the call to change, never the rule's advice to a kernel's author.
    assert!(conv["fix"].to_string().contains("inside cuDNN"), "{conv}");

    let eager = json("torch_eager.csv", &[]);
    let find = |kernel: &str| {
        eager["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| {
                f["rule"] == "uncoalesced-load" && f["kernel"].as_str().unwrap().contains(kernel)
            })
            .unwrap_or_else(|| panic!("no uncoalesced-load on {kernel}"))
            .clone()
    };
    // y.t().contiguous(): a strided-view copy. The fix names the call, not threadIdx.
    let copy = find("direct_copy_kernel_cuda");
    assert_eq!(copy["severity"], "warning");
    assert!(
        copy["fix"].as_str().unwrap().contains(".contiguous()"),
        "{copy}"
    );
    // z.flatten()[idx]: a gather.
    let gather = find("index_elementwise_kernel");
    assert_eq!(gather["severity"], "warning");
    assert!(
        gather["fix"]
            .as_str()
            .unwrap()
            .contains("sort or bucket the indices"),
        "{gather}"
    );

    // channels_last: the NCHW -> channels_last conversion copy is the call-site finding.
    let cl = json("cudnn_channels_last.csv", &[]);
    let conversion = cl["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["rule"] == "uncoalesced-load"
                && f["kernel"]
                    .as_str()
                    .unwrap()
                    .starts_with("void at::elementwise_kernel")
        })
        .expect("layout conversion copy");
    assert!(
        conversion["fix"]
            .as_str()
            .unwrap()
            .contains("channels_last")
    );
    // No warning anywhere is a library-internal rule.
    for v in [&nchw, &eager, &cl] {
        for f in v["findings"].as_array().unwrap() {
            let internal = [
                "register-limited-occupancy",
                "shared-memory-limited-occupancy",
                "local-memory",
                "bank-conflicts",
            ];
            if f["origin"]["kind"] == "library" && internal.contains(&f["rule"].as_str().unwrap()) {
                assert_eq!(f["severity"], "info", "{f}");
            }
        }
    }
}

#[test]
fn helpers_are_listed_once_not_linted() {
    let jax = json("jax_jit.csv", &[]);
    assert!(
        jax["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| !f["kernel"].as_str().unwrap().starts_with("stream_executor"))
    );
    let helpers = jax["helpers"].as_array().unwrap();
    let redzone = helpers
        .iter()
        .find(|h| h["kernel"].as_str().unwrap().contains("RedzoneAllocator"))
        .unwrap();
    assert_eq!(redzone["launch_count"], 79);
    let human = String::from_utf8(
        gpulint(&[
            "check",
            "fixtures/h200-samples/jax_jit.csv",
            "--color",
            "never",
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(human.matches("helper kernels, not linted").count(), 1);
}

#[test]
fn findings_are_ranked_by_time_at_stake_and_the_report_opens_with_the_profile() {
    let eager = json("torch_eager.csv", &[]);
    let stakes: Vec<f64> = eager["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["time_at_stake_ns"].as_f64().unwrap())
        .collect();
    assert!(stakes.windows(2).all(|w| w[0] >= w[1]), "{stakes:?}");
    // The FP32 GEMM takes 90% of the GPU time on the FMA units of an H200: TF32 is the
    // first thing to change. Then the transpose copy, which wastes 7/8 of its sectors on a
    // kernel of ~120 us per launch.
    let first = &eager["findings"][0];
    assert_eq!(first["rule"], "fp32-gemm-on-cuda-cores", "{first}");
    let second = &eager["findings"][1];
    assert!(
        second["kernel"]
            .as_str()
            .unwrap()
            .contains("direct_copy_kernel_cuda"),
        "{second}"
    );
    let out = gpulint(&[
        "check",
        "fixtures/h200-samples/torch_eager.csv",
        "--color",
        "never",
        "--top",
        "1",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("profile: 13 launch(es) of 7 kernel(s)"),
        "{text}"
    );
    assert!(
        text.lines().nth(1).unwrap().contains("[cuBLAS]"),
        "the GEMM takes most of the time: {text}"
    );
    assert!(
        text.contains("more finding(s) with less time at stake (--top 1)"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn min_share_downgrades_small_kernels() {
    let all = json("torch_eager.csv", &[]);
    let warned = |v: &Value| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "warning")
            .count()
    };
    assert_eq!(warned(&all), 3);
    // The gather kernel takes 2.5% of GPU time, the copy 4.1%, the FP32 GEMM 90%.
    let pruned = json("torch_eager.csv", &["--min-share", "3"]);
    assert_eq!(warned(&pruned), 2);
    let big = json("torch_eager.csv", &["--min-share", "5"]);
    assert_eq!(warned(&big), 1);
    let none = json("torch_eager.csv", &["--min-share", "95"]);
    assert_eq!(warned(&none), 0);
}

#[test]
fn a_tensor_core_gemm_is_never_called_memory_bound() {
    let jax = json("jax_jit.csv", &[]);
    for k in jax["kernels"].as_array().unwrap() {
        if k["name"].as_str().unwrap().starts_with("sm90_xmma_gemm") {
            assert_eq!(k["roofline"]["bound"], "compute", "{}", k["name"]);
            assert_eq!(k["roofline"]["precision"], "tensor");
        }
    }
}

/// The launch tracer's evidence on real H200 runs (`gpulint run --save-trace`): PyTorch with
/// SDPA and TF32 (libtorch_cuda.so, libcublasLt.so) and JAX (the XLA CUDA plugin, cuBLAS).
/// Every kernel's origin comes from the object that launched it, helpers stay helpers by
/// name, and the user is never blamed for a library's kernel.
#[test]
fn the_launching_object_names_the_library_on_real_traces() {
    let expect = |file: &str, object_origin: &[(&str, &str)]| {
        let out = common::gpulint(&[
            "check",
            &format!("fixtures/h200-samples/{file}"),
            "--format",
            "json",
            "--exit-zero",
        ]);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let kernels = r["kernels"].as_array().unwrap();
        assert!(!kernels.is_empty(), "{file}");
        for k in kernels {
            let o = &k["origin"];
            if o["kind"] == "helper" {
                assert_eq!(o["name"], "XLA autotuner", "{file}: {k}");
                continue;
            }
            assert_eq!(o["evidence"], "launched_from", "{file}: {k}");
            let object = o["launched_from"].as_str().unwrap();
            let want = object_origin
                .iter()
                .find(|(lib, _)| object.contains(lib))
                .unwrap_or_else(|| panic!("{file}: unexpected object {object}"))
                .1;
            assert_eq!(o["name"], want, "{file}: {}", k["name"]);
        }
        r
    };
    let torch = expect(
        "torch_attention_fixed.trace.csv",
        &[
            ("/libtorch_cuda.so", "PyTorch ATen"),
            ("/libcublasLt.so", "cuBLAS"),
        ],
    );
    // SDPA's memory-efficient attention is PyTorch's, whatever its CUTLASS-like name says.
    let fmha = torch["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with("fmha_cutlassF"))
        .expect("the fused attention kernel");
    assert_eq!(fmha["origin"]["name"], "PyTorch ATen");
    let jax = expect(
        "jax_jit.trace.csv",
        &[
            ("/xla_cuda_plugin.so", "XLA"),
            ("/libcublasLt.so", "cuBLAS"),
        ],
    );
    // XLA's autotuner kernels come from the plugin too, but are helpers by what they do.
    let helper = jax["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().contains("xla_fp_comparison"))
        .expect("the autotuner's comparison kernel");
    assert_eq!(helper["origin"]["kind"], "helper");
}

/// Attention written by hand in FP32 (samples/apps/torch_attention.py on the H200): one
/// warning for the precision switch (its ten other GEMMs are info pointing to it), one for
/// `scaled_dot_product_attention` (forward and backward softmax), and none asking the user
/// to edit a library kernel. The training loop without attention gets no SDPA advice.
#[test]
fn manual_attention_gets_the_framework_calls_once_each() {
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-samples/torch_attention.csv",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = r["findings"].as_array().unwrap();
    let count = |rule: &str, severity: &str| {
        findings
            .iter()
            .filter(|f| f["rule"] == rule && f["severity"] == severity)
            .count()
    };
    assert_eq!(count("fp32-gemm-on-cuda-cores", "warning"), 1);
    assert_eq!(count("fp32-gemm-on-cuda-cores", "info"), 10);
    assert_eq!(count("manual-attention", "warning"), 1);
    let sdpa = findings
        .iter()
        .find(|f| f["rule"] == "manual-attention" && f["severity"] == "warning")
        .unwrap();
    assert!(
        sdpa["fix"]
            .as_str()
            .unwrap()
            .contains("scaled_dot_product_attention"),
        "{sdpa}"
    );
    // Every warning on a library kernel names a call, not an edit of the library.
    for f in findings.iter().filter(|f| f["severity"] == "warning") {
        assert_ne!(f["origin"]["kind"], "user", "{f}");
        let fix = f["fix"].as_str().unwrap();
        assert!(
            ["torch", "ATen", "TF32", "layout", "scaled_dot_product"]
                .iter()
                .any(|w| fix.contains(w)),
            "{fix}"
        );
    }
    let warnings = findings
        .iter()
        .filter(|f| f["severity"] == "warning")
        .count();
    assert!(warnings <= 5, "{warnings} warnings");
    let train = common::gpulint(&[
        "check",
        "fixtures/h200-samples/torch_train.csv",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let train: serde_json::Value = serde_json::from_slice(&train.stdout).unwrap();
    assert!(
        train["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] != "manual-attention")
    );
}

/// GL601 on a cuDNN convolution names the convolution's causes, never the matmul switch,
/// which does not govern cuDNN: the training loop's FP32 GEMM renamed as cuDNN's FP32
/// implicit-GEMM forward convolution.
#[test]
fn fp32_on_cuda_cores_in_cudnn_is_about_the_convolution() {
    let text = std::fs::read_to_string(common::fixture("h200-samples/torch_train.csv")).unwrap();
    let conv = "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nhwckrsc_nchw_tilesize128x128x8_stage3_warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn";
    let renamed = text.replace(
        "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(T1::Params)",
        conv,
    );
    assert_ne!(renamed, text);
    let path = common::scratch_file("torch_train_conv.csv", renamed.as_bytes());
    let out = common::gpulint(&["check", path.to_str().unwrap(), "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "fp32-gemm-on-cuda-cores" && f["kernel"] == conv)
        .expect("GL601 on the convolution");
    assert_eq!(f["origin"]["name"], "cuDNN");
    let fix = f["fix"].as_str().unwrap();
    assert!(fix.contains("input channels a multiple of 4"), "{fix}");
    assert!(fix.contains("channels_last"), "{fix}");
    assert!(!fix.contains("matmul.allow_tf32"), "{fix}");
    let notes = f["notes"].to_string();
    assert!(notes.contains("not a matmul"), "{notes}");
    // The cuBLAS GEMMs of the same loop keep the matmul switch.
    let gemm = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "fp32-gemm-on-cuda-cores" && f["origin"]["name"] == "cuBLAS")
        .expect("GL601 on a cuBLAS GEMM");
    assert!(gemm["fix"].as_str().unwrap().contains("matmul.allow_tf32"));
}

/// A real torch.compile trace (samples/apps/torch_compile.py on the H200, gpulint run's
/// launch trace, lab/runs/2026-12-02-lines-and-pairs.txt): Inductor's Triton kernel is
/// launched from libtorch_python.so, PyTorch's dispatcher, which no origin claims; its
/// unambiguous name makes it generated code, not the user's.
#[test]
fn a_real_torch_compile_trace_names_its_triton_kernel_generated() {
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-samples/torch_compile_run.trace.csv",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let triton = r["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with("triton_red_fused"))
        .expect("the Triton kernel");
    assert!(
        triton["origin"]["launched_from"]
            .as_str()
            .unwrap()
            .ends_with("/libtorch_python.so"),
        "{triton}"
    );
    assert_eq!(triton["origin"]["kind"], "generated", "{triton}");
    assert_eq!(triton["origin"]["evidence"], "name", "{triton}");
}

/// A finding judged from the launch trace alone, on a kernel the sample did not profile,
/// has its origin from the same evidence as a profiled kernel's: the object that launched
/// it. Without it, `cutlass::Kernel2` launched from libcublasLt was CUTLASS's in the
/// findings and cuBLAS's in the kernel table, and `cg_scalars` cited no object.
#[test]
fn findings_judged_from_the_trace_keep_their_origin() {
    for file in [
        "fixtures/h200-by-time/default_cnn3.csv",
        "fixtures/h200-by-time/default_transformer.csv",
        "fixtures/h200-by-time/default_cg_solver.csv",
        "fixtures/h200-by-time/default_lud.csv",
    ] {
        let out = common::gpulint(&["check", file, "--format", "json", "--exit-zero"]);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let table: std::collections::HashMap<&str, &serde_json::Value> =
            (r["kernels"].as_array().unwrap().iter())
                .map(|k| (k["name"].as_str().unwrap(), &k["origin"]))
                .collect();
        for f in r["findings"].as_array().unwrap() {
            let kernel = f["kernel"].as_str().unwrap();
            // Every traced kernel names its launching object.
            assert!(
                f["origin"]["launched_from"].is_string(),
                "{file}: {kernel}: {f}"
            );
            if let Some(origin) = table.get(kernel) {
                assert_eq!(f["origin"]["name"], origin["name"], "{file}: {kernel}");
            }
        }
    }
}
