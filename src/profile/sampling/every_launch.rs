//! The rules that need no counter judged on every launch the trace (or a timing pass)
//! counted, not only on ncu's sample: each traced launch given the device's attributes and
//! the occupancy limits, from the sampled launch most like it or computed from its own.

use super::{EveryLaunch, most_alike};
use crate::ingest;
use crate::rules::{self, Rule};

/// With every launch counted, the rules a launch trace gives what they judge by
/// (`Rule::judged_from_trace`) judge every launch instead of the sampled ones only: a
/// spread misses LU's last, tiny grids, the count does not; a softmax the sample left out
/// still sits beside the batched GEMMs. A timing pass records each launch's attributes; a
/// traced launch takes the device's from the sampled entry most like it, and its
/// occupancy limits from that entry where its resources are the same, else from its own.
/// The launch-shape rules' findings replace the sample's; the others' are added for the
/// kernels the sample holds no launch of, the sampled ones keeping the judgement their
/// counters informed (a stake, say). They belong to the sample's report (the launch
/// numbers are the program's in both), at the line of the sampled launch most like theirs.
pub fn judge_on_every_launch(
    outcome: &mut rules::engine::Outcome,
    every: &EveryLaunch,
    sampled: &ingest::Profile,
    rules: &[Rule],
    ignored: rules::engine::KernelFilter,
) {
    let is_shape_rule = |r: &Rule| r.category == "launch";
    let trace_rules: Vec<Rule> = rules
        .iter()
        .filter(|r| r.judged_on() == rules::JudgedOn::EveryLaunch)
        .cloned()
        .collect();
    let mut linter = rules::engine::Linter::new(&trace_rules, ignored, true);
    let device = one_device_shape(&sampled.launches);
    let profiled: std::collections::HashSet<&str> =
        sampled.launches.iter().map(|l| l.name.as_str()).collect();
    for l in &every.profile.launches {
        let like = most_alike(&sampled.launches, l).map(|i| &sampled.launches[i]);
        // A kernel the sample left out has no row in the export (line 0: none), and its
        // findings say that none of its launches was profiled.
        let left_out = !profiled.contains(l.name.as_str());
        let mut launch = ingest::Launch {
            line: like.map_or(0, |s| s.line),
            profiled: if left_out { Some(0) } else { l.profiled },
            ..l.clone()
        };
        // A traced launch has only its shape, resources, duration and timeline: the rest
        // comes from the sampled entry most like it. A kernel the sample left out has its
        // own, with the device's attributes where every sampled launch gives the same
        // (small-grid judges its grid); the rules that need more of the kernel skip it.
        if every.traced() {
            launch.metrics = traced_launch_metrics(l, like.or(device.as_ref()));
        }
        linter.add(&sampled.file, &launch);
    }
    let mut every = linter.finish();
    // A kernel the sample left out is listed as not profiled; what its launches lack is
    // what no trace gives, not a metric the export is missing, so it is no skip.
    every.skips.retain(|s| profiled.contains(s.kernel.as_str()));
    let replaces = |slug: &str| (trace_rules.iter()).any(|r| r.slug == slug && is_shape_rule(r));
    every
        .findings
        .retain(|f| replaces(&f.rule) || !profiled.contains(f.kernel.as_str()));
    every.skips.retain(|s| replaces(&s.rule));
    outcome.findings.retain(|f| !replaces(&f.rule));
    outcome.findings.extend(every.findings);
    outcome.skips.retain(|s| !replaces(&s.rule));
    outcome.skips.extend(every.skips);
    // What judged the launch-shape rules is every launch now, not the sample: a rule that
    // reads the trace's timeline could not judge the sampled launches, and did these. A
    // rule the sample could not judge that judged a kernel it left out has judged too.
    let (to, from) = (&mut outcome.coverage, every.coverage);
    let judged_now: Vec<String> = (from.judged.iter())
        .filter(|slug| !replaces(slug))
        .cloned()
        .collect();
    for (list, more) in [
        (&mut to.judged, from.judged),
        (&mut to.not_judged, from.not_judged),
        (&mut to.needs_launch_trace, from.needs_launch_trace),
    ] {
        list.retain(|slug| !replaces(slug));
        list.extend(more.into_iter().filter(|slug| replaces(slug)));
    }
    for slug in judged_now {
        to.not_judged.retain(|s| *s != slug);
        to.needs_launch_trace.retain(|s| *s != slug);
        if !to.judged.contains(&slug) {
            to.judged.push(slug);
        }
    }
    for list in [
        &mut to.judged,
        &mut to.not_judged,
        &mut to.needs_launch_trace,
    ] {
        list.sort();
    }
}

/// The device's attributes (its shape, what sets its occupancy limits) as a launch
/// carrying only those, where every sampled launch that gives them gives the same: a
/// kernel the sample left out ran on that device too. `None` where the sampled launches
/// disagree (several kinds of GPU) or give none. An attribute an older export lacks is
/// left out.
fn one_device_shape(sampled: &[ingest::Launch]) -> Option<ingest::Launch> {
    let shape = |l: &ingest::Launch| -> Vec<Option<f64>> {
        (crate::metrics::DEVICE_ATTRIBUTES.iter())
            .map(|k| l.metrics.get(k).copied())
            .collect()
    };
    let mut shapes = sampled
        .iter()
        .map(shape)
        .filter(|s| s.iter().any(Option::is_some));
    let first = shapes.next()?;
    if shapes.any(|s| s != first) {
        return None;
    }
    let mut launch = ingest::Launch::of_shape(0, String::new(), [0; 3], [0; 3], 1);
    launch.grid = None;
    launch.block = None;
    for (k, v) in crate::metrics::DEVICE_ATTRIBUTES.iter().zip(first) {
        if let Some(v) = v {
            launch.metrics.insert(k, v);
        }
    }
    Some(launch)
}

/// The metrics a traced launch gets for the rules judged from the trace: its grid, block,
/// duration, registers and shared memory, with the launch attributes of the sampled entry
/// `like` it, where there is one (the occupancy limits only when its block, registers and
/// shared memory are the same, else computed from its own; its throughputs only when its
/// grid is the same too), and its timeline.
pub fn traced_launch_metrics(
    traced: &ingest::Launch,
    like: Option<&ingest::Launch>,
) -> crate::metrics::Metrics {
    let none = crate::metrics::Metrics::default();
    let like_metrics = like.map_or(&none, |l| &l.metrics);
    let same = |key: &str| {
        let value = traced.metrics.get(key);
        value.is_some() && like_metrics.get(key) == value
    };
    let likeness = crate::metrics::Likeness {
        resources: like.is_some_and(|like| traced.block == like.block)
            && same("registers_per_thread")
            && same("shared_mem_per_block"),
        configuration: like.is_some_and(|like| traced.grid.is_some() && traced.grid == like.grid),
    };
    let mut metrics = crate::metrics::launch_shape_metrics(
        like_metrics,
        &traced.metrics,
        traced.grid.unwrap_or([0; 3]),
        traced.block.unwrap_or([0; 3]),
        traced.metrics.get("duration_ns").copied(),
        likeness,
    );
    for key in ingest::trace::TIMELINE_KEYS {
        if let Some(&v) = traced.metrics.get(key) {
            metrics.insert(key, v);
        }
    }
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel;

    /// LU on the H200: each traced kernel, judged as if the sample had left it out (the
    /// device's attributes from the other kernels' profiled launches), gets the occupancy
    /// limits ncu gave its own profiled launches, computed from the registers and shared
    /// memory the trace recorded; shared memory's at the largest carveout, where ncu's is
    /// at the one the driver chose, which binds no sooner.
    #[test]
    fn a_kernel_the_sample_left_out_gets_its_occupancy_limits_from_the_trace() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let text = std::fs::read_to_string(root.join("h200-corpus/trace_lud.csv")).unwrap();
        let traced = ingest::trace::read(&text, "trace_lud.csv").unwrap();
        let every =
            ingest::read_path(root.join("h200-corpus/all_lud.csv").to_str().unwrap()).unwrap();
        let keys = [
            "limit_blocks",
            "limit_warps",
            "limit_registers",
            "occupancy_limit_min",
            "theoretical_occupancy_pct",
        ];
        let mut checked = std::collections::HashSet::new();
        for t in &traced.launches {
            let base = kernel::function_identifier(&t.name);
            let profiled = (every.launches.iter())
                .find(|l| kernel::function_identifier(&l.name) == base)
                .unwrap();
            let others: Vec<ingest::Launch> = (every.launches.iter())
                .filter(|l| kernel::function_identifier(&l.name) != base)
                .cloned()
                .collect();
            let device = one_device_shape(&others).unwrap();
            let m = traced_launch_metrics(t, Some(&device));
            for k in keys {
                assert_eq!(m.get(k), profiled.metrics.get(k), "{} {k}", t.name);
            }
            assert!(m["limit_shared_mem"] >= profiled.metrics["limit_shared_mem"]);
            checked.insert(base);
        }
        assert_eq!(checked.len(), 3);
    }

    /// torch_attention.py on the H200 (every launch profiled), its launches cut to what
    /// the tracer records of them: a sample that left the softmax out still warns of the
    /// attention written by hand, from the trace's softmax beside its batched GEMMs; the
    /// sampled GEMMs' own findings stay the sample's.
    #[test]
    fn a_softmax_the_sample_left_out_is_judged_from_the_trace() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let every_launch = ingest::read_path(
            root.join("h200-samples/torch_attention.csv")
                .to_str()
                .unwrap(),
        )
        .unwrap();
        let is_softmax = |l: &ingest::Launch| l.name.contains("softmax");
        let traced: Vec<ingest::Launch> = (every_launch.launches.iter())
            .map(|l| {
                let mut t = ingest::Launch::of_shape(
                    l.id,
                    l.name.clone(),
                    l.grid.unwrap(),
                    l.block.unwrap(),
                    0,
                );
                for k in [
                    "duration_ns",
                    "registers_per_thread",
                    "shared_mem_per_block",
                ] {
                    t.metrics.insert(k, l.metrics[k]);
                }
                t
            })
            .collect();
        assert!(traced.iter().any(is_softmax));
        let every = EveryLaunch {
            profile: ingest::Profile {
                launches: traced,
                page: ingest::Page::Trace,
                ..every_launch.clone()
            },
            program_time: None,
            cuda_processes: 1,
            counted_in_run: None,
        };
        let mut sampled = every_launch;
        sampled.launches.retain(|l| !is_softmax(l));
        let rules = crate::rules::load(None).unwrap();
        let mut outcome = rules::engine::lint(std::slice::from_ref(&sampled), &rules);
        let of = |o: &rules::engine::Outcome, rule: &str| -> Vec<String> {
            (o.findings.iter())
                .filter(|f| f.rule == rule)
                .map(|f| f.kernel.clone())
                .collect()
        };
        assert!(of(&outcome, "manual-attention").is_empty());
        let gemm_findings = of(&outcome, "fp32-gemm-on-cuda-cores");
        judge_on_every_launch(
            &mut outcome,
            &every,
            &sampled,
            &rules,
            &rules::engine::no_filter,
        );
        let attention = of(&outcome, "manual-attention");
        assert!(
            !attention.is_empty() && attention.iter().all(|k| k.contains("softmax")),
            "{attention:?}"
        );
        assert_eq!(of(&outcome, "fp32-gemm-on-cuda-cores"), gemm_findings);
        assert!(
            outcome
                .coverage
                .judged
                .contains(&"manual-attention".to_string())
        );
    }
}
