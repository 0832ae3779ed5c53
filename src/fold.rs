//! Folds repeated launches of one kernel (same name, grid and block, in one file) into
//! one entry: how many there were, the mean of each metric (over the launches that have
//! it), and the range of each that varied. Memory grows with the number of distinct
//! kernels, not of launches.

use std::collections::{BTreeMap, HashMap};

use crate::ingest::Launch;

/// Running sum, count and range of one metric.
#[derive(Debug, Clone, Copy)]
struct Tally {
    sum: f64,
    n: u64,
    min: f64,
    max: f64,
}

struct Entry {
    first: Launch,
    tallies: BTreeMap<&'static str, Tally>,
}

/// Folds the launches of one file as they stream in.
#[derive(Default)]
pub struct Folder {
    entries: Vec<Entry>,
    /// Entries by kernel name; a name may come with several grids and blocks.
    index: HashMap<String, Vec<usize>>,
    /// Keep every launch as its own entry (`--per-launch`).
    keep_all: bool,
}

impl Folder {
    /// A folder; with `per_launch`, one that keeps every launch as it is.
    pub fn new(per_launch: bool) -> Self {
        Folder {
            keep_all: per_launch,
            ..Folder::default()
        }
    }

    pub fn add(&mut self, launch: Launch) {
        if self.keep_all {
            self.entries.push(Entry {
                first: launch,
                tallies: BTreeMap::new(),
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
                .iter()
                .map(|(k, v)| {
                    let t = Tally {
                        sum: *v,
                        n: 1,
                        min: *v,
                        max: *v,
                    };
                    (*k, t)
                })
                .collect();
            self.entries.push(Entry {
                first: launch,
                tallies,
            });
            return;
        };
        let entry = &mut self.entries[i];
        entry.first.count += launch.count;
        entry.first.last_id = launch.last_id;
        if entry.first.device.is_none() {
            entry.first.device = launch.device;
        }
        // Launches of one kernel nearly always carry the same metrics: walk both sorted
        // maps side by side, and look keys up only when they differ.
        if entry.tallies.len() == launch.metrics.len()
            && entry
                .tallies
                .keys()
                .zip(launch.metrics.keys())
                // Keys are static names: almost always the same pointer.
                .all(|(a, b)| std::ptr::eq(*a, *b) || a == b)
        {
            for (t, v) in entry.tallies.values_mut().zip(launch.metrics.into_values()) {
                t.sum += v;
                t.n += 1;
                t.min = t.min.min(v);
                t.max = t.max.max(v);
            }
            return;
        }
        for (k, v) in launch.metrics {
            match entry.tallies.get_mut(k) {
                Some(t) => {
                    t.sum += v;
                    t.n += 1;
                    t.min = t.min.min(v);
                    t.max = t.max.max(v);
                }
                None => {
                    let t = Tally {
                        sum: v,
                        n: 1,
                        min: v,
                        max: v,
                    };
                    entry.tallies.insert(k, t);
                }
            }
        }
    }

    /// One entry per kernel, in the order each was first launched.
    pub fn finish(self) -> Vec<Launch> {
        self.entries
            .into_iter()
            .map(|Entry { mut first, tallies }| {
                if first.count > 1 {
                    first.metrics = tallies
                        .iter()
                        .map(|(k, t)| (*k, t.sum / t.n as f64))
                        .collect();
                    first.spread = tallies
                        .into_iter()
                        .filter(|(_, t)| t.min < t.max)
                        .map(|(k, t)| (k, [t.min, t.max]))
                        .collect();
                }
                first
            })
            .collect()
    }
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
            metrics: BTreeMap::from([
                ("duration_ns", duration),
                ("launch__block_size", block as f64),
            ]),
            nvidia_rules: Vec::new(),
            count: 1,
            last_id: id,
            spread: BTreeMap::new(),
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
        assert!(!out[0].spread.contains_key("launch__block_size"));
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
