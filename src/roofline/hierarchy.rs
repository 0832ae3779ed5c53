//! The hierarchical roofline (Yang and Williams, with NERSC's traffic metrics): a kernel
//! against L1, L2 and DRAM, each level with its own intensity and bandwidth roof, and the
//! level where it binds.

use serde::Serialize;

use super::{FAR_BELOW_ROOF_PCT, Roofline, per_byte};
use crate::ingest::Launch;

/// One level of the memory hierarchy on the hierarchical roofline.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryLevel {
    /// `L1`, `L2` or `DRAM`.
    pub level: &'static str,
    pub bytes: f64,
    /// FLOPs per byte moved at this level.
    pub arithmetic_intensity: f64,
    pub peak_bytes_per_s: f64,
    /// Achieved bandwidth as a share of the level's peak, %.
    pub pct_of_bandwidth: f64,
    /// Achieved FLOP/s as a share of this level's roof (the lower of the FP peak and
    /// intensity times bandwidth), %; for a kernel without FP work, its bandwidth share.
    pub pct_of_roof: f64,
    /// The intensity at this level is past its ridge: the FP peak, not this level's
    /// bandwidth, is its roof.
    pub past_ridge: bool,
}

/// The kernel against L1, L2 and DRAM: each level whose bytes, peak and clock the export
/// has.
pub(super) fn hierarchy(
    launch: &Launch,
    flops: f64,
    seconds: f64,
    peak_flops: f64,
    dram: (f64, f64),
) -> Vec<MemoryLevel> {
    let m = |k: &str| launch.metrics.get(k).copied();
    let level = |name, bytes: Option<f64>, peak: Option<f64>| -> Option<MemoryLevel> {
        let (bytes, peak) = (bytes?, peak?);
        if peak <= 0.0 {
            return None;
        }
        let arithmetic_intensity = per_byte(flops, bytes);
        let pct_of_bandwidth = bytes / seconds / peak * 100.0;
        let past_ridge = flops > 0.0 && arithmetic_intensity * peak >= peak_flops;
        let pct_of_roof = if flops > 0.0 {
            flops / seconds / peak_flops.min(arithmetic_intensity * peak) * 100.0
        } else {
            pct_of_bandwidth
        };
        Some(MemoryLevel {
            level: name,
            bytes,
            arithmetic_intensity,
            peak_bytes_per_s: peak,
            pct_of_bandwidth,
            pct_of_roof,
            past_ridge,
        })
    };
    let peak = |per_cycle: &str, clock: &str| Some(m(per_cycle)? * m(clock)?);
    let levels = [
        level(
            "L1",
            m("l1_bytes"),
            peak("l1_bytes_peak_per_cycle", "l1_clock_hz"),
        ),
        level(
            "L2",
            m("l2_bytes"),
            peak("l2_bytes_peak_per_cycle", "l2_clock_hz"),
        ),
        level("DRAM", Some(dram.0), Some(dram.1)),
    ];
    // DRAM alone is the plain roofline: the hierarchy needs a cache level.
    if levels[..2].iter().all(Option::is_none) {
        return Vec::new();
    }
    levels.into_iter().flatten().collect()
}

impl Roofline {
    /// The level of the memory hierarchy nearest its bandwidth roof: where the kernel
    /// binds on the hierarchical roofline. `None` when every level's intensity is past its
    /// ridge (the FP roof binds) or there is no hierarchy.
    pub fn binding_level(&self) -> Option<&MemoryLevel> {
        self.hierarchy
            .iter()
            .filter(|l| !l.past_ridge)
            .max_by(|a, b| a.pct_of_roof.total_cmp(&b.pct_of_roof))
    }

    /// "by level, % of roof: L1 85% (AI 0.12), L2 40% (AI 0.5), DRAM 7% (AI 3.1): L1 is
    /// nearest its roof", or how far the nearest is when every level is far below its
    /// roof, or that the FP roof binds when every level is past its ridge.
    pub(super) fn describe_hierarchy(&self) -> Option<String> {
        if self.hierarchy.is_empty() {
            return None;
        }
        let levels: Vec<String> = self
            .hierarchy
            .iter()
            .map(|l| {
                let counted = self.flops > 0.0 && self.tensor_pipe_pct.is_none();
                let ai = if l.arithmetic_intensity.is_finite() && counted {
                    format!(" (AI {:.2})", l.arithmetic_intensity)
                } else {
                    String::new()
                };
                format!("{} {:.0}%{ai}", l.level, l.pct_of_roof)
            })
            .collect();
        let verdict = match self.binding_level() {
            None => "every level's intensity is past its ridge: the FP roof binds".to_string(),
            Some(n) if n.pct_of_roof < FAR_BELOW_ROOF_PCT => format!(
                "every level far below its roof, the nearest {} at {:.0}%",
                n.level, n.pct_of_roof
            ),
            Some(n) => format!("{} is nearest its roof", n.level),
        };
        Some(format!(
            "by level, % of roof: {}: {verdict}",
            levels.join(", ")
        ))
    }
}
