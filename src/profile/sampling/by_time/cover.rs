//! The cover behind a sample by time: which launch numbers, of which kernels, meet the
//! most of the configurations' needs (by GPU time) within the cap on launches.

use std::collections::BTreeSet;

use super::{Counted, Need};

/// What a cover has taken so far: launch numbers, and the kernels ncu is asked for (every
/// one, where it cannot be asked for some).
#[derive(Clone)]
pub(super) struct Pick {
    pub(super) numbers: BTreeSet<u64>,
    pub(super) kernels: Vec<bool>,
    met: Vec<bool>,
    spent: u64,
    gained: f64,
}

impl Pick {
    fn new(counted: &Counted, needs: &[Need]) -> Pick {
        Pick {
            numbers: BTreeSet::new(),
            kernels: vec![!counted.by_name; counted.kernels.len()],
            met: vec![false; needs.len()],
            spent: 0,
            gained: 0.0,
        }
    }

    /// What taking launch number `n` for a need of `kernel` adds: launches, and need met.
    fn added(&self, counted: &Counted, needs: &[Need], n: u64, kernel: usize) -> (u64, f64) {
        let new_number = !self.numbers.contains(&n);
        let new_kernel = !self.kernels[kernel];
        let kept = |k: usize| self.kernels[k] || k == kernel;
        let mut cost = if new_number {
            counted.cost(n, &self.kernels, kernel)
        } else {
            0
        };
        if new_kernel {
            let launched = counted.kernels[kernel].1;
            cost += self.numbers.iter().filter(|&&m| m <= launched).count() as u64;
        }
        let gain = (needs.iter().zip(&self.met))
            .filter(|(need, met)| !**met && kept(need.kernel))
            .filter(|(need, _)| {
                need.numbers.binary_search(&n).is_ok()
                    || (need.kernel == kernel
                        && new_kernel
                        && need.numbers.iter().any(|m| self.numbers.contains(m)))
            })
            .map(|(need, _)| need.weight)
            .sum();
        (cost, gain)
    }

    /// The weight of the needs met that `counts`.
    fn met_weight(&self, needs: &[Need], counts: impl Fn(&Need) -> bool) -> f64 {
        (needs.iter().zip(&self.met))
            .filter(|(need, met)| **met && counts(need))
            .map(|(need, _)| need.weight)
            .sum()
    }

    /// This pick's needs met and gain counted again against `needs` (the same needs,
    /// weighed otherwise).
    fn rescored(mut self, needs: &[Need]) -> Pick {
        self.met.resize(needs.len(), false);
        for (need, met) in needs.iter().zip(self.met.iter_mut()) {
            *met =
                self.kernels[need.kernel] && need.numbers.iter().any(|m| self.numbers.contains(m));
        }
        self.gained = self.met_weight(needs, |_| true);
        self
    }

    fn take(&mut self, needs: &[Need], n: u64, kernel: usize, cost: u64) {
        self.numbers.insert(n);
        self.kernels[kernel] = true;
        self.spent += cost;
        for (need, met) in needs.iter().zip(self.met.iter_mut()) {
            if !*met
                && self.kernels[need.kernel]
                && need.numbers.iter().any(|m| self.numbers.contains(m))
            {
                *met = true;
                self.gained += need.weight;
            }
        }
    }
}

/// The best of four greedy covers (budgeted coverage): one that takes launches by need
/// met per launch from the start; one that first takes the launch meeting the most need
/// (the first alone can spend a small cap on cheap numbers, a GEMM launched twice a step,
/// past the loop's other kernels, and never afford the step that serves all); one that
/// meets the kernels' own needs first; and one that meets those, then the kinds of their
/// grids ([`Need::grid_kind`]), then the rest. The best meets the most kernel need, then
/// the most grid-kind need, then the most need: a kernel never profiled has findings no
/// one reads, a grid under one wave judges unlike a big one, and one more configuration of
/// a profiled kernel mostly judges as the first. Launch numbers are shared by every kernel
/// asked for, so a kernel added after several numbers costs one launch each: with 8
/// launches, LU's two cheap kernels at four numbers left out lud_internal, 13% of the time.
/// What the cap leaves then goes to `octaves` (`needs::octave_needs`), which never take a
/// launch another need could have had, nor one after the last launch taken: ncu then
/// stops the program where it would have (the launches before a profiled one run slowly
/// under ncu, a training step 1.2 s instead of 0.01 s: lab/runs/2026-12-03-launch-count.txt).
pub(super) fn choose(
    counted: &Counted,
    needs: &[Need],
    mut octaves: Vec<Need>,
    max_launches: u64,
) -> Pick {
    let best = choose_among_covers(counted, needs, max_launches);
    if octaves.is_empty() {
        return best;
    }
    let last = (counted.launches.iter())
        .rposition(|&(kernel, n, _, _)| best.kernels[kernel] && best.numbers.contains(&n));
    let reached: std::collections::HashSet<(usize, u64)> = match last {
        Some(last) => (counted.launches[..=last].iter())
            .map(|&(kernel, n, _, _)| (kernel, n))
            .collect(),
        None => Default::default(),
    };
    for need in &mut octaves {
        let kernel = need.kernel;
        need.numbers.retain(|&n| reached.contains(&(kernel, n)));
    }
    octaves.retain(|need| !need.numbers.is_empty());
    if octaves.is_empty() {
        return best;
    }
    let mut all = needs.to_vec();
    all.extend(octaves);
    greedy(counted, &all, max_launches, best.rescored(&all))
}

fn choose_among_covers(counted: &Counted, needs: &[Need], max_launches: u64) -> Pick {
    let start = Pick::new(counted, needs);
    let by_ratio = greedy(counted, needs, max_launches, start.clone());
    let only = |counts: &dyn Fn(&Need) -> bool| -> Vec<Need> {
        (needs.iter())
            .map(|n| Need {
                numbers: n.numbers.clone(),
                weight: if counts(n) { n.weight } else { 0.0 },
                ..*n
            })
            .collect()
    };
    let kernels = only(&|n| n.whole_kernel);
    let kinds = only(&|n| n.whole_kernel || n.grid_kind);
    let kernels_first = greedy(counted, &kernels, max_launches, start.clone());
    let kinds_second = greedy(
        counted,
        &kinds,
        max_launches,
        kernels_first.clone().rescored(&kinds),
    );
    let kinds_second = greedy(counted, needs, max_launches, kinds_second.rescored(needs));
    let kernels_first = greedy(counted, needs, max_launches, kernels_first.rescored(needs));
    let widest = moves(&start, counted, needs)
        .filter(|m| m.2 <= max_launches)
        .max_by(|a, b| a.3.total_cmp(&b.3).then(b.0.cmp(&a.0)));
    let from_widest = widest.map(|(n, kernel, cost, _)| {
        let mut from_widest = start;
        from_widest.take(needs, n, kernel, cost);
        greedy(counted, needs, max_launches, from_widest)
    });
    // Ties go to the cover listed first.
    let key = |p: &Pick| {
        (
            p.met_weight(needs, |n| n.whole_kernel),
            p.met_weight(needs, |n| n.grid_kind),
            p.gained,
        )
    };
    let mut best = by_ratio;
    for pick in [kernels_first, kinds_second].into_iter().chain(from_widest) {
        let (a, b) = (key(&pick), key(&best));
        let order = (a.0.total_cmp(&b.0))
            .then(a.1.total_cmp(&b.1))
            .then(a.2.total_cmp(&b.2));
        if order.is_gt() {
            best = pick;
        }
    }
    best
}

/// Every move from `pick`: (launch number, kernel, launches it adds, need it meets).
fn moves<'a>(
    pick: &'a Pick,
    counted: &'a Counted,
    needs: &'a [Need],
) -> impl Iterator<Item = (u64, usize, u64, f64)> + 'a {
    (needs.iter().zip(&pick.met))
        .filter(|(_, met)| !**met)
        .flat_map(move |(need, _)| {
            need.numbers.iter().map(move |&n| {
                let (cost, gain) = pick.added(counted, needs, n, need.kernel);
                (n, need.kernel, cost, gain)
            })
        })
}

/// Greedy cover from `pick`: the launch that meets the most unmet need (by GPU time) per
/// launch it adds, until every need is met or nothing more fits in `max_launches`. Ties go
/// to the lower number, which a run stopped early reaches sooner. A first launch is taken
/// even where it costs more than the cap (100 kernels launched once each cost 100
/// launches for number 1, where ncu cannot be asked for some): a sample of nothing would
/// judge nothing.
fn greedy(counted: &Counted, needs: &[Need], max_launches: u64, mut pick: Pick) -> Pick {
    loop {
        let fits = |cost: u64| pick.numbers.is_empty() || pick.spent + cost <= max_launches;
        let best = moves(&pick, counted, needs)
            .filter(|m| m.3 > 0.0 && fits(m.2))
            .max_by(|a, b| {
                let ratio = |m: &(u64, usize, u64, f64)| m.3 / m.2.max(1) as f64;
                ratio(a).total_cmp(&ratio(b)).then(b.0.cmp(&a.0))
            });
        let Some((n, kernel, cost, _)) = best else {
            return pick;
        };
        pick.take(needs, n, kernel, cost);
    }
}
