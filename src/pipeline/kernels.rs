//! The kernel table and the roofline: each launch and each kernel placed against its
//! GPU's peaks, with the bound tags the linter's own findings give (one judge of one
//! verdict).

use crate::ingest::{Launch, Profile};
use crate::roofline::{self, Roofline, gpus::GpuPeaks};
use crate::rules::{self, Rule};

/// Each launch placed on the roofline, in the profiles' order.
pub(super) fn place_launches(
    profiles: &[Profile],
    gpu: Option<&'static GpuPeaks>,
    rules: &[Rule],
    findings: &[rules::engine::Finding],
) -> Vec<Option<Roofline>> {
    let found = reported(rules, findings, false);
    let bars = bars_of(rules, &found);
    profiles
        .iter()
        .flat_map(|p| p.launches.iter())
        .map(|l| roofline::place_with(l, gpu, &bars))
        .collect()
}

/// The roofline's bars from the enabled rules' parameters, and their verdicts.
fn bars_of<'a>(rules: &[Rule], verdict: roofline::Verdict<'a>) -> roofline::Bars<'a> {
    roofline::Bars::with(
        |slug, name| {
            rules
                .iter()
                .find(|r| r.slug == slug)
                .and_then(|r| r.params.get(name).copied())
        },
        verdict,
    )
}

/// The roofline's verdict on the bounds rules name (latency, the load/store pipe, issue,
/// the pipes, atomics): the linter's own findings, so that the chart and the findings
/// never disagree (one judge of one verdict). A one-block LU step is latency-bound, and
/// its finding is small-grid, which `explains` latency-bound: the engine judged both.
/// A launch is matched as [`rules::engine::Finding::covers_in_any_file`] matches it (a
/// `Launch` does not carry its file); with `whole_kernel`, for a view of a kernel's
/// configurations merged, a finding on any of them counts. `None` for a rule not enabled.
fn reported<'a>(
    rules: &'a [Rule],
    findings: &'a [rules::engine::Finding],
    whole_kernel: bool,
) -> impl Fn(&str, &Launch) -> Option<bool> + 'a {
    move |slug, l| {
        rules.iter().any(|r| r.slug == slug).then(|| {
            findings.iter().any(|f| {
                (f.rule == slug || f.explains.iter().any(|r| r == slug))
                    && if whole_kernel {
                        f.kernel == l.name
                    } else {
                        f.covers_in_any_file(l)
                    }
            })
        })
    }
}

/// A kernel table's row: the kernel's launches merged, and its place on the roofline.
pub type KernelRow = (crate::fold::KernelView, Option<Roofline>);

/// One row per kernel over its configurations (per launch with `--per-launch`), with
/// the roofline of the whole, its tags from the kernel's findings (`reported`).
pub fn kernel_rows(
    profiles: &[Profile],
    per_launch: bool,
    gpu: Option<&'static GpuPeaks>,
    rules: &[Rule],
    findings: &[rules::engine::Finding],
) -> Vec<KernelRow> {
    let (one, whole) = (
        reported(rules, findings, false),
        reported(rules, findings, true),
    );
    let (bars_one, bars_whole) = (bars_of(rules, &one), bars_of(rules, &whole));
    crate::fold::kernel_views(
        profiles
            .iter()
            .flat_map(|p| p.launches.iter().map(|l| (p.file.as_str(), l))),
        per_launch,
    )
    .into_iter()
    .map(|v| {
        let bars = if v.configurations > 1 {
            &bars_whole
        } else {
            &bars_one
        };
        let roof = roofline::place_with(&v.entry, gpu, bars);
        (v, roof)
    })
    .collect()
}

/// With `--gpu`, warns when the profile was made on another GPU than the one named: its
/// kernels would be measured against the wrong roof.
pub fn warn_gpu_mismatch(gpu: Option<&'static GpuPeaks>, profiles: &[Profile]) {
    let Some(gpu) = gpu else { return };
    let devices = profiles
        .iter()
        .flat_map(|p| &p.launches)
        .filter_map(|l| l.device.as_deref());
    let mut seen: Vec<&str> = Vec::new();
    for d in devices {
        if seen.contains(&d) {
            continue;
        }
        seen.push(d);
        if roofline::gpus::lookup(d).is_some_and(|g| !std::ptr::eq(g, gpu)) {
            crate::warning!(
                "--gpu {:?}: the profile was made on {d}; its kernels are placed against another GPU's roof",
                gpu.name
            );
        }
    }
}
