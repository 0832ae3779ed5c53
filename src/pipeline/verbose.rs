//! What `--verbose` says of the inputs and the rules that could not judge.

use std::io::Write;

use crate::ingest::{self, Profile};
use crate::rules::{self, COLLECT_HINT};

/// On stderr: each input's page, launches and configurations, its notes, and each rule
/// that skipped launches, a line per rule and reason.
pub(super) fn print_verbose(profiles: &[Profile], skips: &[rules::engine::Skip]) {
    let mut err = std::io::stderr().lock();
    for p in profiles {
        let _ = writeln!(
            err,
            "gpulint: {}: {}, {} launch(es), {} kernel configuration(s)",
            crate::printable::printable(&p.file),
            p.page.describe(),
            p.launch_count(),
            p.configurations()
        );
        for note in p.notes.iter().filter(|n| !n.starts_with(ingest::WARNING)) {
            let _ = writeln!(
                err,
                "gpulint: {}: {note}",
                crate::printable::printable(&p.file)
            );
        }
    }
    // One line per rule and reason, so a 10,000-launch profile does not print 10,000
    // lines: the first launch of each kernel, and how many launches in all.
    let mut grouped: Vec<(&str, &str, Vec<u64>, u64)> = Vec::new();
    for s in skips {
        match grouped
            .iter_mut()
            .find(|(r, why, _, _)| *r == s.rule && *why == s.reason)
        {
            Some((_, _, ids, n)) => {
                ids.push(s.launch);
                *n += s.launch_count;
            }
            None => grouped.push((&s.rule, &s.reason, vec![s.launch], s.launch_count)),
        }
    }
    // A details page shows each section's headline values, not every metric the report
    // collected: the first fix is the same report's raw page, not another collection.
    let details_only = profiles.iter().all(|p| p.page == ingest::Page::Details);
    for (rule, why, ids, n) in grouped {
        let why = if details_only {
            why.replace(COLLECT_HINT, RAW_PAGE_HINT)
        } else {
            why.to_string()
        };
        let listed = if n as usize > ids.len() {
            format!("{n} launch(es), first of each kernel {}", numbers(&ids))
        } else {
            format!("launch(es) {}", numbers(&ids))
        };
        let _ = writeln!(err, "gpulint: skipped {rule} on {listed}: {why}");
    }
}

/// The same, for a details page.
const RAW_PAGE_HINT: &str = "(a details page shows each section's headline values only: export \
    the report's raw page first, `ncu --import REPORT.ncu-rep --csv --page raw` or `gpulint check \
    REPORT.ncu-rep`, which holds every metric it collected; collect with `ncu --metrics \
    $(gpulint metrics)` only if that lacks it)";

/// Launch numbers as a comma-separated list.
fn numbers(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}
