//! Folds repeated launches of one kernel (same name, grid and block, in one file, from any
//! of its processes) into one entry: how many there were, the processes they came from,
//! the mean of each metric (over the launches that have it), and the range of each that
//! varied. Memory grows with the number of distinct kernels, not of launches.

use std::collections::{BTreeMap, HashMap};

use crate::ingest::Launch;
use crate::metrics::{KeyId, KeySet};

/// Running sum, count and range of one metric over launches (an entry that stands for
/// several launches counts as that many), and its sum weighted by the launches'
/// durations (for a time-weighted fold).
#[derive(Debug, Clone, Copy)]
struct Tally {
    sum: f64,
    n: f64,
    min: f64,
    max: f64,
    weighted: f64,
    weights: f64,
}

impl Tally {
    fn new(v: f64, w: f64, launches: f64) -> Self {
        Tally {
            sum: v * launches,
            n: launches,
            min: v,
            max: v,
            weighted: v * w,
            weights: w,
        }
    }

    fn push(&mut self, v: f64, w: f64, launches: f64) {
        self.sum += v * launches;
        self.n += launches;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.weighted += v * w;
        self.weights += w;
    }

    /// The mean per launch; for a rate, share or ratio in a time-weighted fold, the mean
    /// weighted by duration (counts stay per launch, so that count x mean is the total).
    fn mean(&self, key: &str, time_weighted: bool) -> f64 {
        if time_weighted && self.weights > 0.0 && !crate::metrics::is_count(key) {
            self.weighted / self.weights
        } else {
            self.sum / self.n
        }
    }
}

struct Entry {
    first: Launch,
    /// The keys tallied, and their tallies in key-slot order.
    keys: KeySet,
    tallies: Vec<(KeyId, Tally)>,
}

/// Folds the launches of one file as they stream in.
#[derive(Default)]
pub struct Folder {
    entries: Vec<Entry>,
    /// Entries by kernel name; a name may come with several grids and blocks.
    index: rustc_hash::FxHashMap<String, Vec<usize>>,
    /// Keep every launch as its own entry (`--per-launch`).
    keep_all: bool,
    /// Weigh rates by the launches' durations ([`Folder::time_weighted`]).
    time_weighted: bool,
}

impl Folder {
    /// A folder; with `per_launch`, one that keeps every launch as it is.
    pub fn new(per_launch: bool) -> Self {
        Folder {
            keep_all: per_launch,
            ..Folder::default()
        }
    }

    /// A folder whose means of rates, shares and ratios weigh each launch by its duration:
    /// a configuration's sampled launches then say what its time is spent on. A
    /// breadth-first search's expansion kernel is coalesced while its frontier is small and
    /// gathers once it is large, in the launches that take the time.
    pub fn time_weighted() -> Self {
        Folder {
            time_weighted: true,
            ..Folder::default()
        }
    }

    pub fn add(&mut self, launch: Launch) {
        // An entry that stands for several launches (a sampled one, with their mean
        // duration) weighs as all of them.
        let w = launch
            .metrics
            .get("duration_ns")
            .copied()
            .filter(|d| *d > 0.0)
            .unwrap_or(1.0)
            * launch.count.max(1) as f64;
        let launches = launch.count.max(1) as f64;
        if self.keep_all {
            self.entries.push(Entry {
                first: launch,
                keys: KeySet::default(),
                tallies: Vec::new(),
            });
            return;
        }
        let found = self.index.get(&launch.name).and_then(|list| {
            list.iter().copied().find(|&i| {
                let e = &self.entries[i].first;
                e.grid == launch.grid && e.block == launch.block
            })
        });
        let Some(i) = found else {
            self.index
                .entry(launch.name.clone())
                .or_default()
                .push(self.entries.len());
            let tallies = launch
                .metrics
                .ids()
                .map(|(k, v)| (k, Tally::new(v, w, launches)))
                .collect();
            self.entries.push(Entry {
                keys: launch.metrics.key_set(),
                first: launch,
                tallies,
            });
            return;
        };
        let entry = &mut self.entries[i];
        entry.first.profiled = match (entry.first.profiled, launch.profiled) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(entry.first.count) + b.unwrap_or(launch.count)),
        };
        entry.first.count += launch.count;
        entry.first.last_id = launch.last_id;
        if entry.first.device.is_none() {
            entry.first.device = launch.device;
        }
        // The ranks of a job launch the same kernels: one entry, which counts them.
        crate::ingest::add_processes(&mut entry.first.processes, &launch.processes);
        // Launches of one kernel nearly always carry the same metrics: then both walk
        // the same slots in the same order.
        if entry.keys == launch.metrics.key_set() {
            for ((_, t), (_, v)) in entry.tallies.iter_mut().zip(launch.metrics.ids()) {
                t.push(v, w, launches);
            }
            return;
        }
        for (k, v) in launch.metrics.ids() {
            match entry.tallies.binary_search_by_key(&k, |(id, _)| *id) {
                Ok(i) => entry.tallies[i].1.push(v, w, launches),
                Err(i) => entry.tallies.insert(i, (k, Tally::new(v, w, launches))),
            }
        }
        entry.keys = entry.keys.union(launch.metrics.key_set());
    }

    /// One entry per kernel, in the order each was first launched.
    pub fn finish(self) -> Vec<Launch> {
        let time_weighted = self.time_weighted;
        self.entries
            .into_iter()
            .map(
                |Entry {
                     mut first, tallies, ..
                 }| {
                    if first.count > 1 {
                        first.metrics = Default::default();
                        for (k, t) in &tallies {
                            first.metrics.set(*k, t.mean(k.name(), time_weighted));
                        }
                        first.spread = tallies
                            .into_iter()
                            .filter(|(_, t)| t.min < t.max)
                            .map(|(k, t)| (k.name(), [t.min, t.max]))
                            .collect();
                    }
                    first
                },
            )
            .collect()
    }
}

/// One kernel (a name in one file) over every launch configuration it had: what the
/// human report's table and roofline show, one line per kernel however often its grid
/// changed.
#[derive(Debug, Clone)]
pub struct KernelView {
    pub file: String,
    /// The kernel's launches merged: counts (FLOPs, bytes, time) are means weighted by
    /// launch count, so they scale together and the roofline of the whole is right;
    /// percentages of peak are weighted by time, as the kernel's time is spent.
    pub entry: Launch,
    /// Distinct (grid, block) configurations.
    pub configurations: usize,
    /// Fewest and most blocks in its grids, and threads in its blocks.
    pub grid_blocks: Option<[u64; 2]>,
    pub block_threads: Option<[u64; 2]>,
}

/// Groups folded entries (one per configuration) by file and kernel name, in the order
/// each kernel first appears. `per_launch` keeps every entry as its own view.
pub fn kernel_views<'a>(
    entries: impl Iterator<Item = (&'a str, &'a Launch)>,
    per_launch: bool,
) -> Vec<KernelView> {
    let mut views: Vec<KernelView> = Vec::new();
    let mut weights: Vec<BTreeMap<&'static str, f64>> = Vec::new();
    // A launch's weight in a metric's mean: its count, times its duration for a rate.
    let weight = |l: &Launch, k: &str| {
        let time = l.metrics.get("duration_ns").copied().unwrap_or(1.0);
        l.count as f64 * if k.ends_with("_pct") { time } else { 1.0 }
    };
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    let product = |d: Option<[u64; 3]>| d.map(|d| d[0] * d[1] * d[2]);
    let widen = |r: Option<[u64; 2]>, v: Option<u64>| match (r, v) {
        (Some([lo, hi]), Some(v)) => Some([lo.min(v), hi.max(v)]),
        (r, v) => r.or(v.map(|v| [v, v])),
    };
    for (file, l) in entries {
        let key = (file.to_string(), l.name.clone());
        let found = if per_launch {
            None
        } else {
            index.get(&key).copied()
        };
        let Some(i) = found else {
            index.insert(key, views.len());
            weights.push(l.metrics.keys().map(|k| (*k, weight(l, k))).collect());
            views.push(KernelView {
                file: file.to_string(),
                entry: l.clone(),
                configurations: 1,
                grid_blocks: product(l.grid).map(|n| [n, n]),
                block_threads: product(l.block).map(|n| [n, n]),
            });
            continue;
        };
        let v = &mut views[i];
        let w = &mut weights[i];
        let seen = |e: &Launch| e.grid == l.grid && e.block == l.block;
        if !seen(&v.entry) {
            v.configurations += 1;
        }
        v.grid_blocks = widen(v.grid_blocks, product(l.grid));
        v.block_threads = widen(v.block_threads, product(l.block));
        for (k, x) in &l.metrics {
            let [lo, hi] = l.spread.get(k).copied().unwrap_or([*x, *x]);
            let range = match (v.entry.spread.get(k), v.entry.metrics.get(k)) {
                (Some([a, b]), _) => [a.min(lo), b.max(hi)],
                (None, Some(m)) => [m.min(lo), m.max(hi)],
                (None, None) => [lo, hi],
            };
            v.entry.spread.insert(k, range);
            let (n, add) = (w.entry(k).or_insert(0.0), weight(l, k));
            let m = v.entry.metrics.get(k).copied().unwrap_or(0.0);
            if *n + add > 0.0 {
                v.entry.metrics.insert(k, (m * *n + x * add) / (*n + add));
            }
            *n += add;
        }
        v.entry.count += l.count;
        v.entry.last_id = v.entry.last_id.max(l.last_id);
    }
    for v in &mut views {
        let metrics = &v.entry.metrics;
        v.entry
            .spread
            .retain(|k, [lo, hi]| lo < hi && metrics.contains_key(k));
    }
    views
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(id: u64, name: &str, block: u64, duration: f64) -> Launch {
        Launch {
            id,
            name: name.into(),
            grid: Some([8, 1, 1]),
            block: Some([block, 1, 1]),
            device: None,
            line: id + 3,
            metrics: [("duration_ns", duration), ("block_size", block as f64)]
                .into_iter()
                .collect(),
            nvidia_rules: Vec::new(),
            count: 1,
            profiled: None,
            counters_cover: None,
            last_id: id,
            spread: BTreeMap::new(),
            launched_from: None,
            mangled: None,
            device_ordinal: None,
            processes: Vec::new(),
            timed_instrumented: false,
            correlation: None,
        }
    }

    #[test]
    fn repeats_fold_into_means_and_ranges() {
        let mut f = Folder::default();
        f.add(launch(0, "a", 256, 10.0));
        f.add(launch(1, "b", 256, 5.0));
        f.add(launch(2, "a", 256, 30.0));
        f.add(launch(3, "a", 128, 7.0));
        f.add(launch(4, "a", 256, 20.0));
        let out = f.finish();
        let shape: Vec<(u64, &str, u64, u64, u64)> = out
            .iter()
            .map(|l| {
                (
                    l.id,
                    l.name.as_str(),
                    l.block.unwrap()[0],
                    l.count,
                    l.last_id,
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (0, "a", 256, 3, 4),
                (1, "b", 256, 1, 1),
                (3, "a", 128, 1, 3)
            ]
        );
        assert_eq!(out[0].metrics["duration_ns"], 20.0);
        assert_eq!(out[0].spread["duration_ns"], [10.0, 30.0]);
        // A metric that did not vary has no range; the first launch's line stays.
        assert!(!out[0].spread.contains_key("block_size"));
        assert_eq!(out[0].line, 3);
        assert!(out[1].spread.is_empty());
    }

    #[test]
    fn per_launch_keeps_every_launch_as_it_is() {
        let mut f = Folder::new(true);
        f.add(launch(0, "a", 256, 10.0));
        f.add(launch(1, "a", 256, 30.0));
        let out = f.finish();
        assert_eq!(
            out,
            vec![launch(0, "a", 256, 10.0), launch(1, "a", 256, 30.0)]
        );
    }
}

#[cfg(test)]
mod time_weighting {
    use super::Folder;

    /// BFS's spread on the H200 (spread_bfs.csv: launches 1, 2, 3, 4, 8 of each kernel,
    /// as `gpulint run` sampled them): the expansion kernel's 8th launch takes 75 us of the
    /// five's 117 and reads 3.2 useful bytes per sector, the other four 20-32. Folded by
    /// time, the configuration reads as its time is spent, and the uncoalesced loads are
    /// found; folded plainly, the four short launches hide them.
    #[test]
    fn a_configuration_folded_by_time_reads_as_its_time_is_spent() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-corpus/spread_bfs.csv"
        );
        let sampled = crate::ingest::read_path(path).unwrap();
        let rules = crate::rules::load(None).unwrap();
        let kernel = |folder: Folder| {
            let mut folder = folder;
            for l in sampled.launches.iter().cloned() {
                folder.add(l);
            }
            folder
                .finish()
                .into_iter()
                .find(|l| l.name.starts_with("Kernel("))
                .unwrap()
        };
        let fires = |l: &crate::ingest::Launch| {
            let profile = crate::ingest::Profile {
                launches: vec![l.clone()],
                ..sampled.clone()
            };
            crate::rules::engine::lint(std::slice::from_ref(&profile), &rules)
                .findings
                .iter()
                .any(|f| f.rule == "uncoalesced-load")
        };
        let (timed, plain) = (kernel(Folder::time_weighted()), kernel(Folder::new(false)));
        assert_eq!(timed.count, 5);
        let bytes = |l: &crate::ingest::Launch| l.metrics["bytes_per_sector_ld"];
        assert!(
            bytes(&timed) < 13.0 && bytes(&plain) > 23.0,
            "{} {}",
            bytes(&timed),
            bytes(&plain)
        );
        // Counts and the duration stay plain means.
        assert_eq!(timed.metrics["duration_ns"], plain.metrics["duration_ns"]);
        assert_eq!(timed.metrics["sectors_ld"], plain.metrics["sectors_ld"]);
        assert!(fires(&timed) && !fires(&plain));
    }
}
