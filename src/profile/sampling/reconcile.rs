//! The sampled launches reconciled with the count of every launch: numbered in the
//! program's order, and each standing for the counted launches most like it.

use std::collections::HashMap;

use super::{EveryLaunch, SampleKey, sample_key, taken_launches};
use crate::ingest;
use crate::kernel;
use crate::profile::sample::Sample;

/// Gives each sampled launch the number the count gave it: its place in the program's
/// launches. The spread profiled launches 1, 2, 3, 4, 8, ... of each kernel, a sample per
/// configuration the first N of each; both runs launch the same kernels in the same order.
/// When the sample holds more or fewer launches of a kernel than that (seen with a cuBLAS
/// GEMM: likely ncu counts per loaded copy of a kernel), which launches it took is
/// unknown: nothing is renumbered, and the note says why.
pub fn in_program_order(
    sampled: &mut [ingest::Launch],
    every: &EveryLaunch,
    sample: &Sample,
) -> std::result::Result<(), String> {
    let timed = &every.profile;
    // Per kernel (or configuration), the counted launches the sample takes, in order.
    let mut taken_ids: HashMap<SampleKey, Vec<u64>> = HashMap::new();
    for (t, taken) in timed
        .launches
        .iter()
        .zip(taken_launches(&timed.launches, sample))
    {
        let ids = taken_ids.entry(sample_key(sample, t)).or_default();
        if taken {
            ids.push(t.id);
        }
    }
    let mut sampled_count: HashMap<SampleKey, usize> = HashMap::new();
    for l in sampled.iter() {
        *sampled_count.entry(sample_key(sample, l)).or_default() += 1;
    }
    let unmatched: Vec<String> = sampled_count
        .iter()
        .filter(|(key, n)| taken_ids.get(*key).map_or(0, Vec::len) != **n)
        .map(|(key, _)| kernel::short_name(&key.0))
        .collect();
    if !unmatched.is_empty() {
        return Err(format!(
            "the sample holds another number of launches of {} than it takes of the launches \
             {} counted (ncu may count a kernel's launches per loaded copy of it): launch \
             numbers are the sample's, and launch shapes are judged on the sampled launches",
            unmatched.join(", "),
            every.counted_by()
        ));
    }
    let mut seen: HashMap<SampleKey, usize> = HashMap::new();
    for l in sampled {
        let key = sample_key(sample, l);
        let nth = seen.entry(key.clone()).or_default();
        // A launch the count did not see (a program that varies run to run) keeps
        // its place in the sample.
        if let Some(&id) = taken_ids.get(&key).and_then(|ids| ids.get(*nth)) {
            l.id = id;
            l.last_id = id;
        }
        *nth += 1;
    }
    Ok(())
}

/// How far apart in duration (a factor, either way) a counted launch of a sampled
/// launch's own configuration may run and still be like it in its counters. One grid and
/// block run other work at other durations: ATen's direct-copy kernel took 35 us on its 4
/// strided copies and 12-18 us on its 24 contiguous ones, one configuration
/// (lab/runs/2026-12-05-window-one-run.txt); BFS's expansion kernel 6.5 us on a small
/// frontier and 73-80 us on the largest.
pub const LIKE_DURATION: f64 = 2.0;

/// Gives each sampled entry the counted launches that it stands for, and
/// their mean duration, so shares and time at stake count every launch. A timed launch
/// goes to the sampled entry of its kernel most like it: its own configuration when that
/// was sampled, else the same block and the nearest grid (a spread samples few of LU's
/// 63 shrinking grids). Its counters speak only for the launches of its own configuration
/// within [`LIKE_DURATION`] of its duration (and for those of other configurations it
/// stands for): the findings they inform put those at stake (`counters_cover`), while
/// its kernel's row counts every launch. Returns the note saying so.
pub fn apply_timing(
    sample: &mut ingest::Profile,
    every: &EveryLaunch,
    reference: &[Option<f64>],
    renumbered: bool,
    by_time: bool,
) -> String {
    let timed = &every.profile;
    // Counted before each entry's count becomes the launches it stands for.
    let profiled_launches = sample.launch_count();
    let standing = stand_for_counted(&mut sample.launches, timed, reference, renumbered);
    let entries = (sample.launches.iter_mut()).zip(standing.row.iter().zip(&standing.counters));
    for (l, (row, counters)) in entries {
        // A configuration the count never saw keeps what the sample measured.
        if row.launches == 0 {
            continue;
        }
        l.profiled = Some(l.count);
        l.count = row.launches;
        if row.timed_all {
            l.metrics
                .insert("duration_ns", row.time_ns / row.launches as f64);
        }
        if counters.launches < row.launches {
            l.counters_cover = Some(ingest::CountersCover {
                launches: counters.launches,
                time_ns: counters.timed_all.then_some(counters.time_ns),
            });
        }
    }
    let left_out = standing.left_out;
    let total = timed.launch_count();
    let by = every.counted_by();
    if !every.traced() && total >= crate::profile::ncu::MAX_TIMED_LAUNCHES {
        return format!(
            "{}the timing pass stopped at {total} launches: later ones are not counted",
            ingest::WARNING
        );
    }
    // A sample by time leaves the kernels with the least time out by design; its note
    // names them, with their share.
    if left_out > 0 && !by_time {
        return format!(
            "{}{by} measured {total} launches, {left_out} of them of kernels the sample did \
             not profile: those are not counted",
            ingest::WARNING
        );
    }
    if profiled_launches == total {
        return format!("{by} measured all {total} launches, and ncu profiled every one");
    }
    format!(
        "{by} measured all {total} launches; each of the {} sampled launches stands for those \
         of its kernel most like it{}",
        sample.launches.len(),
        unlike_note(&standing.unlike, timed)
    )
}

/// Counted launches: how many, their summed duration, and whether each had one.
#[derive(Debug, Clone, Copy)]
struct Tally {
    launches: u64,
    time_ns: f64,
    timed_all: bool,
}

impl Tally {
    const NONE: Tally = Tally {
        launches: 0,
        time_ns: 0.0,
        timed_all: true,
    };

    fn add(&mut self, t: &ingest::Launch) {
        self.launches += t.count;
        match t.time_ns() {
            Some(time) => self.time_ns += time,
            None => self.timed_all = false,
        }
    }
}

/// What the sampled entries stand for, from [`stand_for_counted`].
struct Standing<'a> {
    /// Per sampled entry, the counted launches its kernel's row counts.
    row: Vec<Tally>,
    /// Per sampled entry, those of them its counters speak for.
    counters: Vec<Tally>,
    /// Per kernel, the launches and time no entry's counters speak for.
    unlike: Vec<(&'a str, u64, f64)>,
    /// Counted launches of kernels with no sampled entry.
    left_out: u64,
}

/// Puts each counted launch with the sampled entry most like it (see [`apply_timing`]);
/// an entry without a launching object takes its launches'.
fn stand_for_counted<'a>(
    sampled: &mut [ingest::Launch],
    timed: &'a ingest::Profile,
    reference: &[Option<f64>],
    renumbered: bool,
) -> Standing<'a> {
    let mut standing = Standing {
        row: vec![Tally::NONE; sampled.len()],
        counters: vec![Tally::NONE; sampled.len()],
        unlike: Vec::new(),
        left_out: 0,
    };
    let own_entry: HashMap<u64, usize> = (sampled.iter().enumerate())
        .map(|(i, l)| (l.id, i))
        .collect();
    for t in &timed.launches {
        // A sampled launch numbered in the program's order stands for its own launch.
        let own = renumbered.then(|| own_entry.get(&t.id).copied()).flatten();
        let Some(i) = own.or_else(|| most_alike_in_time(sampled, reference, t)) else {
            standing.left_out += t.count;
            continue;
        };
        standing.row[i].add(t);
        if own.is_some() || counters_like(&sampled[i], reference.get(i), t) {
            standing.counters[i].add(t);
        } else {
            let time = t.time_ns().unwrap_or(0.0);
            match standing.unlike.iter_mut().find(|u| u.0 == t.name) {
                Some(u) => (u.1, u.2) = (u.1 + t.count, u.2 + time),
                None => standing.unlike.push((&t.name, t.count, time)),
            }
        }
        if sampled[i].launched_from.is_none() {
            sampled[i].launched_from.clone_from(&t.launched_from);
        }
    }
    standing
}

/// Whether the sampled entry's counters speak for counted launch `timed`, which it stands
/// for: a launch of another configuration, the nearest it has, always; one of its own
/// configuration when their durations (as counted, `reference`) are within
/// [`LIKE_DURATION`] of each other, or either has none.
fn counters_like(
    sampled: &ingest::Launch,
    reference: Option<&Option<f64>>,
    timed: &ingest::Launch,
) -> bool {
    if sampled.grid != timed.grid || sampled.block != timed.block {
        return true;
    }
    match (
        reference.copied().flatten(),
        timed.metrics.get("duration_ns"),
    ) {
        (Some(r), Some(&d)) if r > 0.0 && d > 0.0 => (r / d).max(d / r) <= LIKE_DURATION,
        _ => true,
    }
}

/// The end of the sample's note where counted launches ran far from the duration of the
/// sampled launch of their configuration: its counters judge none of them.
fn unlike_note(unlike: &[(&str, u64, f64)], timed: &ingest::Profile) -> String {
    if unlike.is_empty() {
        return String::new();
    }
    let total: f64 = timed
        .launches
        .iter()
        .filter_map(ingest::Launch::time_ns)
        .sum();
    let mut unlike = unlike.to_vec();
    unlike.sort_by(|a, b| b.2.total_cmp(&a.2));
    let listed: Vec<String> = (unlike.iter().take(3))
        .map(|(name, n, time)| {
            let share = if total > 0.0 { time / total } else { 0.0 };
            format!(
                "{} ({n} launch(es), {})",
                kernel::short_name(name),
                crate::profile::sample::percent(share)
            )
        })
        .collect();
    let more = match unlike.len() {
        n if n > 3 => format!(" and {} kernel(s) more", n - 3),
        _ => String::new(),
    };
    format!(
        ", its counters for those of its configuration within {LIKE_DURATION}x of its \
         duration; no counters judge the rest: {}{more}",
        listed.join(", ")
    )
}

/// As [`most_alike`], and among entries alike in shape the one whose duration (in
/// `reference`, as counted) is nearest `timed`'s: a search's small-frontier launches go
/// to a sampled small-frontier launch, its large ones to a large one.
pub fn most_alike_in_time(
    sampled: &[ingest::Launch],
    reference: &[Option<f64>],
    timed: &ingest::Launch,
) -> Option<usize> {
    let best = most_alike(sampled, timed)?;
    let Some(d) = timed.metrics.get("duration_ns").filter(|d| **d > 0.0) else {
        return Some(best);
    };
    let apart = |i: usize| match reference.get(i).copied().flatten() {
        Some(r) if r > 0.0 => (r / d).ln().abs(),
        _ => f64::INFINITY,
    };
    let same_shape = |l: &ingest::Launch| {
        let b = &sampled[best];
        l.name == b.name && l.grid == b.grid && l.block == b.block
    };
    (0..sampled.len())
        .filter(|&i| same_shape(&sampled[i]))
        .min_by(|&a, &b| apart(a).total_cmp(&apart(b)))
}

/// The sampled entry of `timed`'s kernel most like it: the same grid and block, else the
/// same block and the nearest grid (by ratio of blocks), else the nearest grid.
pub fn most_alike(sampled: &[ingest::Launch], timed: &ingest::Launch) -> Option<usize> {
    let blocks = |g: Option<[u64; 3]>| g.map(|g| g.iter().product::<u64>().max(1) as f64);
    let distance = |l: &ingest::Launch| {
        let grids = match (blocks(l.grid), blocks(timed.grid)) {
            (Some(a), Some(b)) => (a / b).ln().abs(),
            _ => f64::INFINITY,
        };
        // Grids of as many blocks, (128,1,1) and (64,2,1), are still other grids.
        (l.block != timed.block, l.grid != timed.grid, grids)
    };
    sampled
        .iter()
        .enumerate()
        .filter(|(_, l)| l.name == timed.name)
        .min_by(|(_, a), (_, b)| {
            let (a, b) = (distance(a), distance(b));
            (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2))
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From the timing pass of LU on the H200 (every launch), the launches each sample
    /// profiles: 22 for the spread and 129 per configuration, as the H200 runs profiled
    /// (fixtures/h200-corpus/spread_lud.csv, sample_lud.csv).
    fn launch(id: u64, name: &str) -> ingest::Launch {
        ingest::Launch::of_shape(id, name.into(), [8, 16, 1], [128, 1, 1], 1)
    }

    /// A GEMM launched 60 times, alternating with another kernel: the spread takes its
    /// launches 1, 2, 3, 4, 8, 16, 32, which are the program's launches 0, 2, 4, 6, 14, 30, 62.
    /// When the sample holds 11 of them instead (as a cuBLAS GEMM's did on the H200,
    /// lab/runs/2026-11-30-torch-spread.txt), nothing is renumbered.
    #[test]
    fn sampled_launches_are_renumbered_only_when_the_counts_agree() {
        let timed = ingest::Profile {
            file: "timing".into(),
            page: ingest::Page::Raw,
            launches: (0..120)
                .map(|i| launch(i, if i % 2 == 0 { "gemm" } else { "relu" }))
                .collect(),
            notes: Vec::new(),
            source_blocks: Vec::new(),
        };
        let mut spread: Vec<ingest::Launch> = (0..14)
            .map(|i| launch(100 + i, if i % 2 == 0 { "gemm" } else { "relu" }))
            .collect();
        let timed = EveryLaunch {
            profile: timed,
            program_time: None,
            cuda_processes: 0,
            counted_in_run: None,
        };
        assert_eq!(
            in_program_order(&mut spread, &timed, &Sample::Spread),
            Ok(())
        );
        let gemm: Vec<u64> = spread
            .iter()
            .filter(|l| l.name == "gemm")
            .map(|l| l.id)
            .collect();
        assert_eq!(gemm, [0, 2, 4, 6, 14, 30, 62]);
        let mut eleven: Vec<ingest::Launch> = (0..11).map(|i| launch(i, "gemm")).collect();
        let refused = in_program_order(&mut eleven, &timed, &Sample::Spread).unwrap_err();
        assert!(refused.contains("of gemm"), "{refused}");
        assert_eq!(eleven[10].id, 10);
    }

    /// The note says every launch was profiled only where it was: BFS's trace on the H100
    /// counted 22 launches of two kernels, of which a sample by time profiled 8, which
    /// stand for all 22 (2026-12-05; the note had said "ncu profiled every one").
    #[test]
    fn the_note_says_every_launch_was_profiled_only_where_it_was() {
        let profile = |launches: Vec<ingest::Launch>| ingest::Profile {
            file: "bfs".into(),
            page: ingest::Page::Raw,
            launches,
            notes: Vec::new(),
            source_blocks: Vec::new(),
        };
        let name = |i: u64| {
            if i.is_multiple_of(2) {
                "Kernel"
            } else {
                "Kernel2"
            }
        };
        let every = EveryLaunch {
            profile: profile((0..22).map(|i| launch(i, name(i))).collect()),
            program_time: None,
            cuda_processes: 0,
            counted_in_run: None,
        };
        let reference = vec![None; 8];
        let mut sample = profile((0..8).map(|i| launch(i, name(i))).collect());
        let note = apply_timing(&mut sample, &every, &reference, true, true);
        assert!(
            note.ends_with(
                "each of the 8 sampled launches stands for those of its kernel most like it"
            ),
            "{note}"
        );
        assert_eq!(sample.launch_count(), 22);
        let mut whole = profile((0..22).map(|i| launch(i, name(i))).collect());
        let note = apply_timing(&mut whole, &every, &vec![None; 22], true, true);
        assert!(
            note.ends_with("measured all 22 launches, and ncu profiled every one"),
            "{note}"
        );
    }

    /// ATen's direct-copy kernel on the H100 (attention, 1 step): one configuration, 4
    /// strided copies of 35 us and 24 contiguous ones of 12-18 us; the sample profiled a
    /// strided one. Its kernel's row counts all 28, its counters only the 4 like it; a
    /// launch of another grid still goes to it, counters and all, whatever its time. The
    /// note names the 24: 360 of the 502 us counted.
    #[test]
    fn a_sampled_launchs_counters_speak_for_launches_near_its_duration() {
        let copy = |id: u64, grid: u64, us: f64| {
            let mut l = ingest::Launch::of_shape(id, "copy".into(), [grid, 1, 1], [128, 1, 1], 1);
            l.metrics.insert("duration_ns", us * 1000.0);
            l
        };
        let mut counted: Vec<ingest::Launch> = (0..28)
            .map(|i| copy(i, 16384, if i % 7 == 0 { 35.0 } else { 15.0 }))
            .collect();
        counted.push(copy(28, 8192, 2.0));
        let profile = |launches| ingest::Profile {
            file: "attention".into(),
            page: ingest::Page::Raw,
            launches,
            notes: Vec::new(),
            source_blocks: Vec::new(),
        };
        let every = EveryLaunch {
            profile: profile(counted),
            program_time: None,
            cuda_processes: 0,
            counted_in_run: None,
        };
        let mut sample = profile(vec![copy(7, 16384, 36.0)]);
        let note = apply_timing(&mut sample, &every, &[Some(35_000.0)], true, true);
        let entry = &sample.launches[0];
        assert_eq!(entry.count, 29);
        let cover = entry.counters_cover.unwrap();
        assert_eq!(cover.launches, 5, "the 4 strided copies and the other grid");
        assert_eq!(cover.time_ns, Some(4.0 * 35_000.0 + 2_000.0));
        assert!(
            note.ends_with("no counters judge the rest: copy (24 launch(es), 71.7%)"),
            "{note}"
        );
        // Where every launch is near the sampled one's time, its counters speak for all.
        let mut alike = profile(vec![copy(7, 16384, 36.0)]);
        apply_timing(&mut alike, &every, &[Some(20_000.0)], true, true);
        assert_eq!(alike.launches[0].counters_cover, None);
    }

    /// A cuBLAS-style GEMM sampled with grids (64,2,1) and (128,1,1), as in the PyTorch
    /// loop on the H200: a launch of either grid goes to its own entry, though both grids
    /// have 128 blocks; a grid of 100 blocks to the nearest.
    #[test]
    fn a_counted_launch_goes_to_its_own_grid_first() {
        let grid = |g: [u64; 3]| ingest::Launch::of_shape(0, "gemm".into(), g, [256, 1, 1], 1);
        let sampled = [grid([64, 2, 1]), grid([128, 1, 1]), grid([16, 1, 1])];
        assert_eq!(most_alike(&sampled, &grid([128, 1, 1])), Some(1));
        assert_eq!(most_alike(&sampled, &grid([64, 2, 1])), Some(0));
        assert_eq!(most_alike(&sampled, &grid([20, 1, 1])), Some(2));
        let other = ingest::Launch::of_shape(0, "other".into(), [16, 1, 1], [256, 1, 1], 1);
        assert_eq!(most_alike(&sampled, &other), None);
    }
}
