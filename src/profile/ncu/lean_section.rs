//! ncu's SourceCounters section without its warp-state sampling, for a source pass whose
//! findings need no stall samples: the same per-line SASS counters and derived columns,
//! about 0.3-0.4 s less a kernel on the H200 (lab/runs/2026-12-03-source-cost.txt). It is
//! written at run time from the section file of the ncu that will profile, so that it
//! matches that ncu; without one, the pass takes the whole section.

use std::path::Path;

/// The lean section's identifier, for `--section`.
pub const IDENTIFIER: &str = "GpulintSourceLines";

/// A folder holding the lean section (for `--section-folder`), made from the
/// SourceCounters.section of the Nsight Compute that `ncu` runs; `None` when there is none
/// or its layout is not the one this knows.
pub fn folder_for(ncu: &Path) -> Option<tempfile::TempDir> {
    let text = crate::profile::ncu::tracer::cupti::nsight_compute_folders(ncu)
        .into_iter()
        .find_map(|dir| {
            std::fs::read_to_string(dir.join("sections/SourceCounters.section")).ok()
        })?;
    let lean = lean(&text)?;
    let dir = tempfile::Builder::new()
        .prefix("gpulint-sections-")
        .tempdir()
        .ok()?;
    std::fs::write(dir.path().join(format!("{IDENTIFIER}.section")), lean).ok()?;
    Some(dir)
}

/// The section without sampling: its top-level `Sets` (no set holds it) and `Body` (the
/// hotspot table of stall samples) left out, each `SourceMetrics` entry that names a
/// pcsamp metric left out, and its own identifier. `None` unless the file has the
/// identifier and source metrics this expects, and a sampled metric to leave out.
pub fn lean(section: &str) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let (mut identified, mut left_out) = (false, 0);
    for block in blocks(section) {
        let head = block.first().map_or("", |l| l.trim());
        if head.starts_with("Sets") || head.starts_with("Body") {
            continue;
        }
        if head.starts_with("Identifier:") {
            identified = true;
            out.push(format!("Identifier: \"{IDENTIFIER}\""));
        } else if head.starts_with("DisplayName:") {
            out.push("DisplayName: \"gpulint source lines\"".into());
        } else if head.starts_with("SourceMetrics") && block.len() > 2 {
            let inner = &block[1..block.len() - 1];
            out.push(block[0].to_string());
            for entry in blocks(&inner.join("\n")) {
                if entry.iter().any(|l| l.contains("pcsamp")) {
                    left_out += 1;
                } else {
                    out.extend(entry.iter().map(|l| l.to_string()));
                }
            }
            out.push(block[block.len() - 1].to_string());
        } else {
            out.extend(block.iter().map(|l| l.to_string()));
        }
    }
    (identified && left_out > 0).then(|| out.join("\n") + "\n")
}

/// The top-level blocks of a protobuf text file, by braces: a `Name {` line to the line
/// that closes it, or a line of its own.
fn blocks(text: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let (mut current, mut depth) = (Vec::new(), 0i64);
    for line in text.lines() {
        current.push(line);
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        if depth <= 0 {
            out.push(std::mem::take(&mut current));
            depth = 0;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of ncu 2025.3.1's SourceCounters.section, cut to one entry of each kind.
    const SECTION: &str = r#"Identifier: "SourceCounters"
DisplayName: "Source Counters"
Order: 100
Sets {
  Identifier: "full"
}
MetricDefinitions {
  MetricDefinitions {
    Name: "derived__memory_l2_theoretical_sectors_global_excessive"
    Expression: "memory_l2_theoretical_sectors_global - memory_l2_theoretical_sectors_global_ideal"
  }
}
Body {
  DisplayName: "Hotspot Locations"
  Items {
    SourceMetricTable {
      Metrics {
        Name: "group:smsp__pcsamp_warp_stall_reasons"
      }
    }
  }
}
SourceMetrics {
  Metrics {
    Label: "Warp Stall Sampling (All Samples)"
    Name: "group:smsp__pcsamp_warp_stall_reasons"
  }
  Metrics {
    Label: "L2 Theoretical Sectors Global Excessive"
    Name: "derived__memory_l2_theoretical_sectors_global_excessive"
  }
}
"#;

    #[test]
    fn the_lean_section_keeps_the_counters_and_drops_the_sampling() {
        let lean = lean(SECTION).unwrap();
        assert!(
            lean.starts_with("Identifier: \"GpulintSourceLines\"\n"),
            "{lean}"
        );
        assert!(!lean.contains("pcsamp"), "{lean}");
        assert!(
            !lean.contains("Sets") && !lean.contains("Hotspot"),
            "{lean}"
        );
        assert!(lean.contains("Label: \"L2 Theoretical Sectors Global Excessive\""));
        assert!(lean.contains("Expression: \"memory_l2_theoretical_sectors_global - "));
        // Braces still balance, block by block.
        assert_eq!(lean.matches('{').count(), lean.matches('}').count());
        // A file of another layout is not guessed at.
        assert_eq!(super::lean("Identifier: \"X\"\nSourceMetrics {\n}\n"), None);
    }
}
