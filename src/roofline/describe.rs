//! A placement in words: the one text rendering of a kernel's place on the roofline, and
//! the bound in a word for the report's list of kernels.

use super::{Bound, Roofline};

/// Under this share of its roof, with no unit named as the one it hits, a kernel is not
/// "compute-bound" or "memory-bound" in any useful sense: its side of the ridge only says
/// which roof is nearer (issue 40: a GEMM at 2% of the FP32 roof was called compute-bound).
pub const FAR_BELOW_ROOF_PCT: f64 = 10.0;

/// A unit this busy is where a kernel far below the DRAM and FP roofs meets its limit:
/// the latency-bound bar (below it nothing is busy).
pub const CACHE_LEVEL_BUSY_PCT: f64 = 40.0;

impl Roofline {
    /// The unit a kernel far below the DRAM and FP roofs is busiest at, when that is busy
    /// enough to be its limit: the level of the hierarchy it meets.
    pub fn binding_cache(&self) -> Option<(&'static str, f64)> {
        self.busiest_unit
            .filter(|(_, p)| *p >= CACHE_LEVEL_BUSY_PCT && self.far_below_roofs())
    }

    /// Far below both roofs, with no other unit named as its limit: the side of the ridge
    /// is then only where the nearer roof is.
    pub fn far_below_roofs(&self) -> bool {
        self.instruction_pct_of_roof.is_none()
            && self.pct_of_roof < FAR_BELOW_ROOF_PCT
            && !self.latency_bound
            && self.atomic_slice_pct.is_none()
            && self.load_store_pipe_pct.is_none()
            && self.pipe_pct.is_none()
            && self.issue_slots_pct.is_none()
    }

    /// The headline of a kernel far below the DRAM and FP roofs: the unit it meets
    /// instead, where the export says.
    fn describe_far_below(&self, ai: &str, flops: &str) -> String {
        format!(
            "AI {ai} (ridge {:.1}), {}: {:.0}% of the nearer of the DRAM and FP roofs, \
             the {} roof: {flops}, {}",
            self.ridge,
            match (self.binding_cache(), self.busiest_unit) {
                (Some((level, p)), _) => {
                    format!("far below the DRAM and FP roofs, {level} {p:.0}% busy")
                }
                (None, Some(_)) => "far below every roof".into(),
                (None, None) => "far below the DRAM and FP roofs (the export has no L1, L2 \
                                 or SM figures)"
                    .into(),
            },
            self.pct_of_roof,
            match self.bound {
                Bound::Memory => "DRAM",
                _ => "compute",
            },
            si(self.achieved_bytes_per_s, "B/s"),
        )
    }

    /// The one text rendering of a placement, for `check`'s roofline section and
    /// `gpulint roofline`: "AI 0.31 FLOP/B (ridge 13.9), memory-bound, 87% of roof: 1.31
    /// TFLOP/s fp32, 4.20 TB/s".
    pub fn describe(&self) -> String {
        let ai = if self.arithmetic_intensity.is_finite() {
            format!("{:.2} FLOP/B", self.arithmetic_intensity)
        } else {
            "no DRAM traffic".into()
        };
        let flops = if self.flops > 0.0 {
            format!("{} {}", si(self.achieved_flops, "FLOP/s"), self.precision)
        } else {
            "no FP work".into()
        };
        let mut line = match (self.instruction_pct_of_roof, self.instruction_roofline) {
            // No FP work: placed on the instruction roofline instead.
            (Some(issue), instructions) => {
                let dram = self.achieved_bytes_per_s / self.peak_bytes_per_s * 100.0;
                let per_sector = instructions.map_or(String::new(), |i| {
                    format!(
                        "{:.2} warp instructions per DRAM sector, ",
                        i.warp_instructions_per_sector
                    )
                });
                format!(
                    "no FP work: {per_sector}instructions at {issue:.0}% of the issue ceiling, \
                     DRAM at {dram:.0}% of its roof ({}): {}",
                    si(self.achieved_bytes_per_s, "B/s"),
                    self.bound.label()
                )
            }
            // The FLOP counters miss tensor-core work: its FP32 share would read as an
            // intensity and a FLOP rate of the tensor cores'.
            (None, _) if self.tensor_pipe_pct.is_some() => format!(
                "tensor cores, AI not measured (their FLOPs are not counted), {}, {:.0}% of \
                 roof: tensor pipe {:.0}% busy, {}",
                self.bound.label(),
                self.pct_of_roof,
                self.tensor_pipe_pct.unwrap_or_default(),
                si(self.achieved_bytes_per_s, "B/s"),
            ),
            (None, _) if self.far_below_roofs() => self.describe_far_below(&ai, &flops),
            (None, _) => format!(
                "AI {ai} (ridge {:.1}), {}, {:.0}% of roof: {flops}, {}",
                self.ridge,
                self.bound.label(),
                self.pct_of_roof,
                si(self.achieved_bytes_per_s, "B/s"),
            ),
        };
        if self.latency_bound {
            line.push_str(", latency-bound");
        }
        if let Some(p) = self.atomic_slice_pct {
            line.push_str(&format!(
                ", global atomics queued at one L2 slice (its atomic unit {p:.0}% busy): the \
                 roof it hits"
            ));
        }
        if let Some(p) = self.load_store_pipe_pct {
            line.push_str(&format!(", load/store pipe {p:.0}% busy: the roof it hits"));
        }
        if let (Some(p), None) = (self.issue_slots_pct, self.instruction_pct_of_roof) {
            line.push_str(&format!(
                ", issue slots {p:.0}% busy: instructions, not bytes, are the roof it hits"
            ));
        }
        if let Some(p) = self.pipe_pct {
            line.push_str(&format!(", ALU/XU pipe {p:.0}% busy: the roof it hits"));
        }
        if let Some(h) = self.describe_hierarchy() {
            line.push_str("; ");
            line.push_str(&h);
        }
        line
    }

    /// The bound in a word, for the report's list of the kernels that take the time.
    pub fn label(&self) -> &'static str {
        if self.atomic_slice_pct.is_some() {
            "atomic-bound (one L2 slice)"
        } else if self.latency_bound {
            "latency-bound"
        } else if self.load_store_pipe_pct.is_some() {
            "load/store-bound"
        } else if self.pipe_pct.is_some() {
            "pipe-bound"
        } else if self.issue_slots_pct.is_some() {
            "issue-bound"
        } else if let Some(level) = self
            .binding_level()
            .filter(|l| l.level != "DRAM" && l.pct_of_roof >= FAR_BELOW_ROOF_PCT)
            .filter(|_| self.far_below_roofs())
        {
            // The hierarchical roofline names the level where the kernel binds.
            match level.level {
                "L2" => "L2-bound (hierarchical roofline)",
                _ => "L1-bound (hierarchical roofline)",
            }
        } else if let Some((level, _)) = self.binding_cache() {
            match level {
                "L2" => "L2-bound (far below the DRAM and FP roofs)",
                "L1" => "L1-bound (far below the DRAM and FP roofs)",
                _ => "SM-bound (far below the DRAM and FP roofs)",
            }
        } else if self.far_below_roofs() && self.busiest_unit.is_some() {
            "far below every roof"
        } else if self.far_below_roofs() {
            "far below the DRAM and FP roofs"
        } else {
            self.bound.label()
        }
    }
}

/// "58.3 TFLOP/s", "4.12 TB/s": SI prefixes for the human report.
pub fn si(v: f64, unit: &str) -> String {
    let (scale, prefix) = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(s, _)| v.abs() >= *s)
        .unwrap_or((1.0, ""));
    let x = v / scale;
    let decimals = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.decimals$} {prefix}{unit}")
}
