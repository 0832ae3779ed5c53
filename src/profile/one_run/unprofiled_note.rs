//! What one run says it could not see: a kernel the tracer profiled only before its
//! longest launches.

use std::collections::HashMap;

use crate::ingest;

/// How many times longer than a kernel's longest profiled launch an unprofiled one must
/// run to be of another kind (two octaves: BFS's Kernel took 6.5 us at its profiled first
/// level and 73-80 us at its largest).
const LONGER: f64 = 4.0;

/// What the report says where the tracer profiled a kernel only before its longest
/// launches (`taken`: the profiled launches' numbers): which kernels, how many launches and
/// how long, against the profiled one's own duration (`sampled`, as the range profiler
/// measured it), for kernels whose longer launches hold 1% of the GPU time or more.
/// Their counters may differ from the profiled launch's, and nothing in one run shows them.
pub fn longer_unprofiled_note(
    sampled: &[ingest::Launch],
    every: &ingest::Profile,
    taken: &[u64],
) -> Option<String> {
    let mut longest: HashMap<&str, f64> = HashMap::new();
    for l in sampled {
        if let Some(&d) = l.metrics.get("duration_ns") {
            let at = longest.entry(l.name.as_str()).or_insert(d);
            *at = at.max(d);
        }
    }
    let total: f64 = every
        .launches
        .iter()
        .filter_map(ingest::Launch::time_ns)
        .sum();
    // Per kernel: the time, count and longest of its launches that ran LONGER times longer.
    let mut longer: Vec<(&str, f64, u64, f64, f64)> = Vec::new();
    for t in (every.launches.iter()).filter(|t| taken.binary_search(&t.id).is_err()) {
        let (Some(&profiled), Some(&d)) =
            (longest.get(t.name.as_str()), t.metrics.get("duration_ns"))
        else {
            continue;
        };
        if d < LONGER * profiled {
            continue;
        }
        match longer.iter_mut().find(|k| k.0 == t.name) {
            Some(k) => (k.1, k.2, k.3) = (k.1 + d * t.count as f64, k.2 + t.count, k.3.max(d)),
            None => longer.push((&t.name, d * t.count as f64, t.count, d, profiled)),
        }
    }
    let share = crate::profile::sample::KERNEL_SHARE_PCT / 100.0;
    longer.retain(|k| total > 0.0 && k.1 >= share * total);
    if longer.is_empty() {
        return None;
    }
    longer.sort_by(|a, b| b.1.total_cmp(&a.1));
    let listed: Vec<String> = (longer.iter().take(3))
        .map(|(name, ns, n, most, profiled)| {
            format!(
                "{} ({n} launch(es) up to {:.1} us, {} of the GPU time, where its profiled one \
                 took {:.1} us)",
                crate::kernel::short_name(name),
                most / 1e3,
                crate::profile::sample::percent(ns / total),
                profiled / 1e3
            )
        })
        .collect();
    Some(format!(
        "{}the tracer profiled {} only before {} longest launches, whose counters may differ: \
         {}; --two-runs has ncu profile a launch of each octave of durations",
        ingest::WARNING,
        if longer.len() == 1 {
            "a kernel"
        } else {
            "kernels"
        },
        if longer.len() == 1 { "its" } else { "their" },
        listed.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BFS's Kernel as one run saw it on the H100: profiled at its first level (6.5 us),
    /// its largest levels 4 times longer and more: the note names it, its launches and
    /// their share; a kernel whose launches are all alike gets none.
    #[test]
    fn a_kernel_profiled_before_its_longest_launches_is_named() {
        let timed = |id: u64, name: &str, ns: f64| {
            let mut l = ingest::Launch::of_shape(id, name.into(), [2048, 1, 1], [512, 1, 1], 1);
            l.metrics.insert("duration_ns", ns);
            l
        };
        let every = ingest::Profile::of_trace(vec![
            timed(0, "Kernel", 0.0),
            timed(1, "Kernel2", 0.0),
            timed(2, "Kernel", 9_600.0),
            timed(3, "Kernel2", 3_900.0),
            timed(4, "Kernel", 72_500.0),
            timed(5, "Kernel2", 4_300.0),
            timed(6, "Kernel", 79_800.0),
            timed(7, "Kernel2", 3_500.0),
        ]);
        let sampled = [timed(0, "Kernel", 6_500.0), timed(1, "Kernel2", 3_400.0)];
        // (72.5 + 79.8) us of the 173.6 us traced: 87.7%.
        let note = longer_unprofiled_note(&sampled, &every, &[0, 1]).unwrap();
        assert!(
            note.contains(
                "Kernel (2 launch(es) up to 79.8 us, 87.7% of the GPU time, where its \
                           profiled one took 6.5 us)"
            ),
            "{note}"
        );
        assert!(!note.contains("Kernel2"), "{note}");
        assert!(
            note.ends_with("--two-runs has ncu profile a launch of each octave of durations"),
            "{note}"
        );
        let alike = [timed(0, "Kernel", 80_000.0), timed(1, "Kernel2", 3_400.0)];
        assert_eq!(longer_unprofiled_note(&alike, &every, &[0, 1]), None);
    }
}
