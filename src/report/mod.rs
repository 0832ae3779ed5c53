//! Report formats, one file each. A [`Report`] is everything a format may show.

pub mod cards;
pub mod concise;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod markdown;
pub mod roofline_svg;
pub mod sarif;

use crate::ingest::{Launch, Profile};
use crate::roofline::Roofline;
use crate::rules::engine::{Coverage, Finding, Skip};

/// Writes a section a renderer has built and empties it for the next: the formats write
/// section by section (a finding, a table), so a report is never held whole.
pub fn flush(section: &mut String, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    out.write_all(section.as_bytes())?;
    section.clear();
    Ok(())
}

/// What the formats render.
pub struct Report<'a> {
    pub profiles: &'a [Profile],
    pub findings: &'a [Finding],
    pub skips: &'a [Skip],
    /// Which rules could judge, and which could not: every format says it.
    pub coverage: &'a Coverage,
    /// One per launch, in the order of [`Report::launches`].
    pub rooflines: &'a [Option<Roofline>],
    /// One per kernel over all its configurations (per launch with `--per-launch`),
    /// with its roofline: the human report's table and roofline lines.
    pub kernels: &'a [(crate::fold::KernelView, Option<Roofline>)],
    pub origins: &'a crate::origin::Origins,
    /// Helper kernels listed once, with their launch counts.
    pub helpers: &'a [(String, u64)],
    /// The GPU time shares are of (helper kernels left out), from the analysis.
    pub gpu_time_ns: f64,
    /// What CUDA source paths are made relative to (`--source-root`, or the working
    /// directory).
    pub source_root: Option<std::path::PathBuf>,
    /// Show only this many findings (human format).
    pub top: Option<usize>,
    pub color: bool,
    pub verbose: bool,
    /// What `gpulint run`'s sample profiled, for its one profile; empty for exports.
    pub sample: crate::profile::sample::SampleInfo,
}

impl Report<'_> {
    /// Where a finding belongs in a repository: its CUDA source line, relative to the
    /// source root when under it, or else the profile's row.
    pub fn code_location(&self, f: &Finding) -> (String, u64) {
        match &f.source {
            Some(s) => (relative_to(&s.file, self.source_root.as_deref()), s.line),
            None => (f.file.clone(), f.line),
        }
    }

    /// Where a reader finds a finding: its CUDA source line when known, else the row of
    /// the export; a `gpulint run` that kept no export (`--save-csv`) has no file to name,
    /// so the program that was profiled.
    /// Made printable: a file name can hold a newline that would start a line of its
    /// own (a `::error` workflow command, in a CI log).
    pub fn location(&self, f: &Finding) -> String {
        let place = if f.source.is_some() {
            let (file, line) = self.code_location(f);
            format!("{file}:{line}")
        } else {
            match profiled_program(&f.file) {
                Some(program) => {
                    format!("{program} (profiled by gpulint run; --save-csv keeps the export)")
                }
                // A kernel a sample left out has no row of its own.
                None if f.line == 0 => f.file.clone(),
                None => format!("{}:{}", f.file, f.line),
            }
        };
        crate::printable::printable(&place).into_owned()
    }

    pub fn launches(&self) -> impl Iterator<Item = (&Profile, &Launch)> {
        self.profiles
            .iter()
            .flat_map(|p| p.launches.iter().map(move |l| (p, l)))
    }

    /// The findings a format lists: the first `--top N` (they come ranked, the most time
    /// at stake first), all without it.
    pub fn listed_findings(&self) -> &[Finding] {
        &self.findings[..self.top.unwrap_or(usize::MAX).min(self.findings.len())]
    }

    /// How many findings `--top` left out of the list.
    pub fn findings_left_out(&self) -> usize {
        self.findings.len() - self.listed_findings().len()
    }

    /// "N more finding(s) with less time at stake (--top M)", when `--top` left some out.
    pub fn left_out_by_top(&self) -> Option<String> {
        let left = self.findings_left_out();
        (left > 0).then(|| {
            format!(
                "{left} more finding(s) with less time at stake (--top {})",
                self.top.unwrap_or_default()
            )
        })
    }

    /// Launches in the inputs, counting every launch a folded entry stands for.
    pub fn launch_total(&self) -> u64 {
        self.profiles.iter().map(Profile::launch_count).sum()
    }

    /// How many launches the kernel a merged finding is about had, in every
    /// configuration; `None` for a finding on one launch (`--per-launch`).
    pub fn kernel_launches(&self, f: &Finding) -> Option<u64> {
        if f.covered.is_empty() {
            return None;
        }
        let total: u64 = self
            .launches()
            .filter(|(p, l)| p.file == f.file && f.is_on(&l.name))
            .map(|(_, l)| l.count)
            .sum();
        (total > 0).then_some(total)
    }

    /// Launches with their roofline placement.
    pub fn launches_with_roofline(
        &self,
    ) -> impl Iterator<Item = (&Profile, &Launch, Option<&Roofline>)> {
        self.launches()
            .zip(
                self.rooflines
                    .iter()
                    .map(Option::as_ref)
                    .chain(std::iter::repeat(None)),
            )
            .map(|((p, l), r)| (p, l, r))
    }
}

/// The headline's counts: "N launch(es) of K kernel(s), T of GPU time". Where a sample by
/// time left whole kernels out, the total counts their time (in no kernel's share) but
/// the profile holds only the profiled kernels' launches, so the headline says so: "N
/// launch(es) of the K kernel(s) profiled, T of GPU time over all M launches".
pub fn headline_counts(r: &Report, launches: u64, kernels: usize) -> String {
    let time = micros(r.gpu_time_ns);
    let counts = match r.sample.counted_launches {
        Some(all) if r.sample.coverage.is_some() && all > launches => format!(
            "{launches} launch(es) of the {kernels} kernel(s) profiled, {time} of GPU time \
             over all {all} launches"
        ),
        _ => format!("{launches} launch(es) of {kernels} kernel(s), {time} of GPU time"),
    };
    // Several files are one report: say so, for shares are then of all of them.
    match r.profiles.len() {
        0 | 1 => counts,
        n => format!("{counts}, in {n} files read together"),
    }
}

/// Nanoseconds as microseconds with one decimal: "1,234.5 us".
pub fn micros(ns: f64) -> String {
    format!(
        "{} us",
        crate::rules::template::format_number(ns / 1000.0, Some(1))
    )
}

/// What a sampled `gpulint run` profiled, and what the times count; `None` for exports.
pub fn sample_text(r: &Report) -> Option<String> {
    let (Some(p), Some(sample)) = (r.profiles.first(), r.sample.sample.as_ref()) else {
        return None;
    };
    let which = sample.describe();
    Some(if let Some(profiled) = r.sample.profiled_launches {
        let standing_for = r.sample.coverage.as_ref().map_or(String::new(), |c| {
            format!(
                ", standing for {:.1}% of the GPU time",
                100.0 * c.profiled_share
            )
        });
        format!(
            "a sample: {profiled} of {} launches were profiled ({which}){standing_for}; times \
             and shares count every launch (the {})",
            r.sample.counted_launches.unwrap_or(p.launch_count()),
            r.sample.every_launch_counted_by.unwrap_or("timing pass")
        )
    } else {
        format!(
            "a sample: {} launch(es) were profiled ({which}); times and shares are of those \
             (no launch trace, --verbose says why; --time-all-launches counts every launch \
             with ncu, --all-launches profiles every one)",
            p.launch_count()
        )
    })
}

/// The kernels whose configurations a sample by time did not profile, by why, each reason
/// with its kernels the most GPU time first ([`LEFT_OUT_LISTED`] named, the rest counted;
/// JSON lists them all): "not profiled, past the launch cap (...): k1 7.4%, k2 6.8%, 9
/// more, 12.0%; under 1% of the GPU time: ...". `None` where nothing was left out, or the
/// run was no sample by time.
pub fn left_out_text(r: &Report) -> Option<String> {
    let coverage = r.sample.coverage.as_ref()?;
    let left = &coverage.left_out;
    let pct = crate::profile::sample::percent;
    let mut reasons: Vec<crate::profile::sample::LeftOutBecause> = Vec::new();
    for l in left {
        if !reasons.contains(&l.because) {
            reasons.push(l.because);
        }
    }
    let groups: Vec<String> = (reasons.iter())
        .map(|&because| {
            let of: Vec<_> = left.iter().filter(|l| l.because == because).collect();
            let mut named: Vec<String> = (of.iter().take(LEFT_OUT_LISTED))
                .map(|l| format!("{} {}", short_name(&l.kernel), pct(l.share)))
                .collect();
            if of.len() > LEFT_OUT_LISTED {
                let rest: f64 = of[LEFT_OUT_LISTED..].iter().map(|l| l.share).sum();
                named.push(format!(
                    "{} more, {}",
                    of.len() - LEFT_OUT_LISTED,
                    pct(rest)
                ));
            }
            format!("{}: {}", because.describe(), named.join(", "))
        })
        .collect();
    (!groups.is_empty()).then(|| format!("not profiled, {}", groups.join("; ")))
}

/// Kernels [`left_out_text`] names for each reason before it counts the rest.
pub const LEFT_OUT_LISTED: usize = 4;

/// Where a finding's launches ran: "grid (8,1,1), block (256,1,1)", or for a kernel
/// whose grid changed, "32 configurations, grids of 1-32 blocks, block (16,1,1)".
pub fn configuration_text(f: &Finding) -> String {
    let dim3 =
        |d: Option<[u64; 3]>| d.map_or("-".to_string(), |[x, y, z]| format!("({x},{y},{z})"));
    match f.grid_blocks {
        Some([lo, hi]) if f.configurations > 1 => {
            let sizes = if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo}-{hi}")
            };
            format!(
                "{} configurations, grids of {sizes} blocks, block {}",
                f.configurations,
                dim3(f.block)
            )
        }
        _ => format!("grid {}, block {}", dim3(f.grid), dim3(f.block)),
    }
}

pub use crate::kernel::{dim3, short_name};

/// The program a profile was made of by `gpulint run` without `--save-csv` (its name is
/// `ncu:PROGRAM`): no file a reader has.
pub fn profiled_program(file: &str) -> Option<&str> {
    file.strip_prefix("ncu:")
}

/// `path` relative to `root` when it lies under it; else as it was.
pub fn relative_to(path: &str, root: Option<&std::path::Path>) -> String {
    let p = std::path::Path::new(path);
    root.and_then(|r| p.strip_prefix(r).ok())
        .map_or_else(|| path.to_string(), |rel| rel.display().to_string())
}

/// ", the same time as GL101's above: one fix saves it once", where another finding's
/// stake is this one's (see `Finding::stake_shared_with`); empty otherwise.
pub fn shared_stake_text(f: &Finding) -> String {
    f.stake_shared_with.as_ref().map_or(String::new(), |code| {
        format!(", the same time as {code}'s above, not more: one bound caps both")
    })
}

/// The kernel a finding is about, as a line of any format names it: its short name, and
/// for a card of several instantiations (`cards`), how many more it stands for.
pub fn finding_kernel(f: &Finding) -> String {
    match f.instances.len() {
        0 => short_name(&f.kernel),
        n => format!("{} and {n} more instantiation(s)", short_name(&f.kernel)),
    }
}

/// The info findings of one rule and one reason, for the summaries that fold them.
pub struct InfoGroup<'a> {
    pub rule: &'a str,
    pub why: &'a str,
    /// Findings, a card's instances counted each.
    pub findings: usize,
    /// The kernels, in the findings' order, each once.
    pub kernels: Vec<&'a str>,
    /// The time at stake in all, where any finding has one.
    pub stake_ns: Option<f64>,
}

impl InfoGroup<'_> {
    /// The kernels as a table shows them: the first by short name (clipped to 40
    /// characters, with an ellipsis), and how many more.
    pub fn kernels_cell(&self) -> String {
        let first = self.kernels.first().map_or(String::new(), |k| {
            crate::printable::clip(&short_name(k), 40)
        });
        match self.kernels.len() {
            0 | 1 => first,
            n => format!("{first} and {} more", n - 1),
        }
    }
}

/// Info findings grouped by rule and reason (`info_because`; an info rule's own findings
/// have none), the most time at stake first; ties keep the findings' order.
pub fn info_groups<'a>(findings: impl Iterator<Item = &'a Finding>) -> Vec<InfoGroup<'a>> {
    let mut groups: Vec<InfoGroup> = Vec::new();
    for f in findings {
        let why = f
            .info_because
            .as_deref()
            .unwrap_or("an info rule: a fact to know");
        let g = match groups
            .iter_mut()
            .position(|g| g.rule == f.rule && g.why == why)
        {
            Some(i) => &mut groups[i],
            None => {
                groups.push(InfoGroup {
                    rule: &f.rule,
                    why,
                    findings: 0,
                    kernels: Vec::new(),
                    stake_ns: None,
                });
                groups.last_mut().expect("just pushed")
            }
        };
        g.findings += 1 + f.instances.len();
        for k in std::iter::once(&f.kernel).chain(&f.instances) {
            if !g.kernels.contains(&k.as_str()) {
                g.kernels.push(k);
            }
        }
        if let Some(t) = f.time_at_stake_ns {
            g.stake_ns = Some(g.stake_ns.unwrap_or(0.0) + t);
        }
    }
    groups.sort_by(|a, b| {
        b.stake_ns
            .unwrap_or(0.0)
            .total_cmp(&a.stake_ns.unwrap_or(0.0))
    });
    groups
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn short_names() {
        assert_eq!(
            short_name("copy_coalesced(const float *, float *, unsigned long)"),
            "copy_coalesced"
        );
        assert_eq!(
            short_name("void transpose_tiled<0>(const float *, float *, int)"),
            "transpose_tiled<0>"
        );
        let long = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4<float, float, float, cutlass::arch::Sm80>>(Params)";
        let shown = short_name(long);
        assert!(
            shown.starts_with("cutlass::Kernel2<…") && shown.ends_with('>'),
            "{shown}"
        );
        assert_eq!(short_name("(anonymous namespace)::k(int)"), "(anon)::k");
        let torch = "void at::<unnamed>::distribution_elementwise_grid_stride_kernel<float, 4, void templates::normal_and_transform<float, float, at::CUDAGeneratorImpl *>(at::TensorIteratorBase &)>(long, at::PhiloxCudaState)";
        assert!(
            short_name(torch)
                .starts_with("at::(anon)::distribution_elementwise_grid_stride_kernel<…"),
            "{}",
            short_name(torch)
        );
        // Two kernels that differ only in their template arguments stay apart, and a name
        // of thousands of characters stays within one line.
        let other = long.replace("align4", "align1");
        assert_ne!(short_name(long), short_name(&other));
        let huge = format!("void user_kernel<{}>(int)", "Policy<32, 8>, ".repeat(200));
        assert!(
            short_name(&huge).chars().count() <= 60,
            "{}",
            short_name(&huge)
        );
        assert_eq!(short_name(long), short_name(long), "stable");
    }
}
