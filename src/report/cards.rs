//! One card per cause: the same finding on several instantiations of one kernel function
//! (template arguments aside: `scale<1>`, `scale<2>`, ...) is one cause with one fix, so
//! the reports show it once, with the instances listed, instead of a card each. Only the
//! formats people read fold: JSON keeps a finding per kernel with its own time at stake,
//! and so does the baseline, so the gate compares each.

use crate::rules::engine::Finding;

/// Instances named in a card's note before "and N more".
const NAMED: usize = 6;

/// Folds findings that share file, rule, severity, message and source line, and whose
/// kernels are one function (`crate::kernel::base_name`), into the first of them (the
/// most at stake: the findings come ranked): its time at stake, GPU time and launches
/// are then of all, and a note names the others.
pub fn one_card_per_cause(findings: &mut Vec<Finding>) {
    type Key = (
        String,
        String,
        crate::rules::Severity,
        String,
        String,
        Option<(String, u64)>,
    );
    let key = |f: &Finding| -> Key {
        (
            f.file.clone(),
            f.rule.clone(),
            f.severity,
            crate::kernel::base_name(&f.kernel),
            f.message.clone(),
            f.source.as_ref().map(|s| (s.file.clone(), s.line)),
        )
    };
    let mut kept: Vec<Finding> = Vec::with_capacity(findings.len());
    let mut keys: Vec<Key> = Vec::with_capacity(findings.len());
    for f in findings.drain(..) {
        let k = key(&f);
        match keys.iter().position(|other| *other == k) {
            Some(i) if kept[i].kernel != f.kernel && !kept[i].instances.contains(&f.kernel) => {
                absorb(&mut kept[i], f);
            }
            _ => {
                keys.push(k);
                kept.push(f);
            }
        }
    }
    for card in kept.iter_mut().filter(|c| !c.instances.is_empty()) {
        card.notes.push(instances_note(card));
    }
    // A card's stake is now of all its instances.
    crate::rules::engine::rank(&mut kept);
    *findings = kept;
}

/// `other`'s launches, time and kernel added to `card`.
fn absorb(card: &mut Finding, other: Finding) {
    let add = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    card.time_at_stake_ns = add(card.time_at_stake_ns, other.time_at_stake_ns);
    card.covered_time_ns = add(card.covered_time_ns, other.covered_time_ns);
    card.launch_count += other.launch_count;
    card.configurations += other.configurations;
    card.instances.push(other.kernel);
}

/// "the same on 11 more instantiation(s) of copy_gridstride: copy_gridstride<2>, ...;
/// one fix for all".
fn instances_note(card: &Finding) -> String {
    let names: Vec<String> = (card.instances.iter().take(NAMED))
        .map(|k| crate::kernel::short_name(k))
        .collect();
    let more = card.instances.len().saturating_sub(NAMED);
    let rest = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "the same on {} more instantiation(s) of {}: {}{rest}; one fix for all (the time at \
         stake counts them all)",
        card.instances.len(),
        crate::kernel::short_name(&crate::kernel::base_name(&card.kernel)),
        names.join(", ")
    )
}
