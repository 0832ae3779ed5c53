//! The source pass's own section, written at run time from the SourceCounters.section of
//! the ncu that will profile, so that it matches that ncu: the per-line columns the source
//! page reader takes ([`crate::ingest::source::COUNTED_COLUMNS`]) and the columns their
//! derived metrics are computed from, with the warp-state sampling only where a finding
//! reads stall samples. ncu's whole section also collects cycle and branch counters for its
//! header and body, and cache-policy and thread columns, which cost the pass 0.1-0.15 s a
//! kernel more on the H200 (lab/runs/2026-12-03-source-cost.txt). Without a section file
//! of the layout this knows, the pass takes the whole section.

use std::path::Path;

use crate::ingest::source::COUNTED_COLUMNS;

/// The section's identifier, for `--section`.
pub const IDENTIFIER: &str = "GpulintSourceLines";

/// Columns the counted ones are derived from: the N-way conflicts are shared wavefronts
/// over instructions, the excessive sectors those over the ideal; and the shared
/// wavefronts' ideal, whose difference from them is the conflicts per line.
const DERIVED_FROM: [&str; 3] = [
    "L1 Wavefronts Shared",
    "L1 Wavefronts Shared Ideal",
    "L2 Theoretical Sectors Global Ideal",
];

/// A folder holding the section (for `--section-folder`), with the warps' stall sampling
/// when `sampling`, made from the SourceCounters.section of the Nsight Compute that `ncu`
/// runs; `None` when there is none or its layout is not the one this knows.
pub fn folder_for(ncu: &Path, sampling: bool) -> Option<tempfile::TempDir> {
    let text = crate::profile::ncu::tracer::cupti::nsight_compute_folders(ncu)
        .into_iter()
        .find_map(|dir| {
            std::fs::read_to_string(dir.join("sections/SourceCounters.section")).ok()
        })?;
    let section = section(&text, sampling)?;
    let dir = crate::platform::private_tempdir("gpulint-sections-").ok()?;
    std::fs::write(dir.path().join(format!("{IDENTIFIER}.section")), section).ok()?;
    Some(dir)
}

/// [`folder_for`], unless the user named sections, a set or a section folder of their own
/// through `--ncu-arg`: ncu takes one folder, where theirs must be found; the source
/// counters then come from ncu's whole SourceCounters section.
pub fn folder_unless_asked(
    ncu: &Path,
    extra_args: &[String],
    sampling: bool,
) -> Option<tempfile::TempDir> {
    let asked = super::gives_option(extra_args, super::SECTION_ARGS);
    (!asked).then(|| folder_for(ncu, sampling)).flatten()
}

/// The section: ncu's metric definitions, and of its `SourceMetrics` the entries whose
/// label is read or derived from (and the pcsamp ones when `sampling`), under its own
/// identifier. Its set memberships (`Sets`), header and body metrics and hotspot table
/// (`Header`, `Metrics`, `Body`) are left out. `None` unless the file has the identifier
/// and every column wanted.
pub fn section(text: &str, sampling: bool) -> Option<String> {
    let wanted: Vec<&str> = COUNTED_COLUMNS
        .iter()
        .chain(&DERIVED_FROM)
        .copied()
        .collect();
    let label_of = |entry: &[&str]| {
        entry.iter().find_map(|l| {
            let label = l.trim().strip_prefix("Label:")?.trim();
            Some(label.trim_matches('"').to_string())
        })
    };
    let mut out: Vec<String> = Vec::new();
    let (mut identified, mut found) = (false, Vec::new());
    for block in blocks(text) {
        let head = block.first().map_or("", |l| l.trim());
        let keyword = head.split(['{', ' ', ':']).next().unwrap_or("");
        if matches!(keyword, "Sets" | "Body" | "Header" | "Metrics") {
            continue;
        }
        if keyword == "Identifier" {
            identified = true;
            out.push(format!("Identifier: \"{IDENTIFIER}\""));
        } else if keyword == "DisplayName" {
            out.push("DisplayName: \"gpulint source lines\"".into());
        } else if keyword == "SourceMetrics" && block.len() > 2 {
            let inner = &block[1..block.len() - 1];
            out.push(block[0].to_string());
            for entry in blocks(&inner.join("\n")) {
                let sampled = entry.iter().any(|l| l.contains("pcsamp"));
                let label = label_of(&entry);
                let read = label.as_deref().is_some_and(|l| wanted.contains(&l));
                if read {
                    found.extend(label);
                }
                if read || (sampled && sampling) {
                    out.extend(entry.iter().map(|l| l.to_string()));
                }
            }
            out.push(block[block.len() - 1].to_string());
        } else {
            out.extend(block.iter().map(|l| l.to_string()));
        }
    }
    let complete = wanted.iter().all(|w| found.iter().any(|f| f == w));
    (identified && complete).then(|| out.join("\n") + "\n")
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

    /// The stand-in ncu's copy of ncu 2025.3.1's layout, cut to the entries kept and one of
    /// each kind left out.
    const SECTION: &str = include_str!("../../../tests/stand-in/sections/SourceCounters.section");

    #[test]
    fn the_section_keeps_the_columns_read_and_their_inputs() {
        let section = section(SECTION, false).unwrap();
        assert!(
            section
                .lines()
                .any(|l| l == "Identifier: \"GpulintSourceLines\""),
            "{section}"
        );
        for label in COUNTED_COLUMNS.iter().chain(&DERIVED_FROM) {
            assert!(section.contains(&format!("Label: \"{label}\"")), "{label}");
        }
        for left_out in [
            "pcsamp",
            "Sets",
            "Hotspot",
            "Branch Efficiency",
            "Elapsed Cycles",
            "L1 Active Cycles",
            "Thread Instructions Executed",
        ] {
            assert!(!section.contains(left_out), "{left_out}: {section}");
        }
        assert!(section.contains("Expression: \"memory_l1_wavefronts_shared / inst_executed\""));
        // Braces still balance, block by block.
        assert_eq!(section.matches('{').count(), section.matches('}').count());
    }

    #[test]
    fn the_sampling_comes_only_when_asked_for() {
        let sampled = section(SECTION, true).unwrap();
        assert!(sampled.contains("Label: \"Warp Stall Sampling (All Samples)\""));
        assert!(!sampled.contains("Hotspot") && !sampled.contains("L1 Active Cycles"));
    }

    /// A file of another layout, or without a column read, is not guessed at.
    #[test]
    fn a_section_of_another_layout_gives_none() {
        assert_eq!(
            section("Identifier: \"X\"\nSourceMetrics {\n}\n", false),
            None
        );
        let without = SECTION.replace("Label: \"Divergent Branches\"", "Label: \"Other\"");
        assert_eq!(section(&without, false), None);
    }
}
