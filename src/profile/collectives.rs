//! NCCL's kernels, which ncu does not profile unless asked (`--profile-nccl`): a collective
//! waits for its peer ranks, which ncu's serialized replay has stopped, so the run hangs
//! (NVIDIA/nccl#536). The launch trace still times them; the report gives their share of
//! each rank's GPU time instead, and each rank's share of the job's.

use crate::ingest;

/// ncu's name filter for every kernel but NCCL's, by function or demangled name (a
/// template's demangled name starts with its return type). ncu's regular expressions take
/// the negative lookahead (lab/runs/2026-12-03-ddp-one-gpu.txt).
pub const NOT_NCCL: &str = "regex:^(?!(void )?nccl)";

/// Whether a kernel is one of NCCL's (`ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)`,
/// `ncclKernel_...`): what [`NOT_NCCL`] leaves out, read the same way, so that what ncu
/// skips and what gpulint counts as skipped agree. No allocation: it is asked of every
/// traced launch.
pub fn is_nccl(name: &str) -> bool {
    name.strip_prefix("void ")
        .unwrap_or(name)
        .starts_with("nccl")
}

/// What the launch trace says of the ranks, when a job ran on several devices or
/// processes, or NCCL's kernels ran: each rank's share of the GPU time (each process's,
/// where several launched kernels; else each device's), NCCL's share of each rank's time,
/// why they were not profiled unless they were, and where communication outweighs
/// computation on a rank, the levers that send less often.
pub fn share_note(every: &ingest::Profile, profiled: bool) -> Option<String> {
    let processes: std::collections::BTreeSet<ingest::Process> = every
        .launches
        .iter()
        .flat_map(|l| l.processes.iter().copied())
        .collect();
    let by_process = processes.len() > 1;
    let mut by_rank: std::collections::BTreeMap<Where, (f64, f64)> = Default::default();
    for l in &every.launches {
        let time = l.time_ns().unwrap_or(0.0);
        let at = Where {
            process: l.processes.first().copied().filter(|_| by_process),
            device: l.device_ordinal,
        };
        let rank = by_rank.entry(at).or_default();
        rank.0 += time;
        if is_nccl(&l.name) {
            rank.1 += time;
        }
    }
    let several = by_rank.len() > 1;
    let nccl = by_rank.values().any(|(_, nccl)| *nccl > 0.0);
    if !several && !nccl {
        return None;
    }
    let whose = match (by_process, processes.iter().all(|p| p.rank.is_some())) {
        (true, true) => "rank",
        (true, false) => "process",
        (false, _) => "device",
    };
    let total: f64 = by_rank.values().map(|(all, _)| all).sum();
    let share = |part: f64, of: f64| 100.0 * part / of.max(f64::MIN_POSITIVE);
    let mut parts = Vec::new();
    if several {
        let shares: Vec<String> = (by_rank.iter())
            .map(|(at, (all, _))| format!("{:.1}%{at}", share(*all, total)))
            .collect();
        parts.push(format!("the GPU time by {whose}: {}", shares.join(", ")));
    }
    if nccl {
        let shares: Vec<String> = (by_rank.iter())
            .map(|(at, (all, nccl))| format!("{:.1}%{at}", share(*nccl, *all)))
            .collect();
        let mut said = if by_rank.keys().any(|at| *at != Where::default()) {
            format!("NCCL's share of each {whose}'s time: {}", shares.join(", "))
        } else {
            format!("NCCL's kernels took {} of the GPU time", shares.join(", "))
        };
        if !profiled {
            said.push_str(
                "; they are not profiled: a collective waits for ranks that ncu's replay \
                 has stopped, and the run would hang (--profile-nccl profiles them at that \
                 risk)",
            );
        }
        parts.push(said);
    }
    let mut note = format!("the launch trace: {}", parts.join("; "));
    // The rank that computes most waits least for the others: its NCCL time is the
    // communication itself.
    let busiest = by_rank
        .iter()
        .max_by(|a, b| computing(a).total_cmp(&computing(b)));
    if busiest.is_some_and(|(_, (all, nccl))| 2.0 * nccl > *all) {
        note.push_str(
            ". Communication outweighs computation: larger gradient buckets (DDP's \
             bucket_cap_mb), overlapping it with the backward pass, or gradient accumulation \
             (no_sync) send less often",
        );
    }
    if let (true, true, Some(busiest)) = (several, nccl, busiest) {
        note.push_str(&imbalance(&by_rank, busiest));
    }
    Some(note)
}

/// A rank's GPU time outside NCCL, from its (all, NCCL) time.
fn computing((_, (all, nccl)): &(&Where, &(f64, f64))) -> f64 {
    all - nccl
}

/// How much more one rank may compute than another before the note says so. The ranks of
/// a data-parallel job run the same kernels on inputs of the same shape, on GPUs of one
/// kind: their compute times differ by a few percent.
const IMBALANCE: f64 = 1.2;

/// Where `most`, the rank of a job with collectives that computes most (outside NCCL),
/// computes over [`IMBALANCE`] times what another does: the others wait for it inside the
/// collectives, where their NCCL share, not their compute, grows.
fn imbalance(
    by_rank: &std::collections::BTreeMap<Where, (f64, f64)>,
    most: (&Where, &(f64, f64)),
) -> String {
    let Some(least) = (by_rank.iter()).min_by(|a, b| computing(a).total_cmp(&computing(b))) else {
        return String::new();
    };
    if computing(&least) <= 0.0 || computing(&most) <= IMBALANCE * computing(&least) {
        return String::new();
    }
    format!(
        ". Uneven work: {} computes {:.0}% more than {} outside NCCL, and the others wait \
         for it in the collectives (uneven inputs, or work one rank does alone: evaluation, \
         logging, checkpoints)",
        most.0.label(),
        100.0 * (computing(&most) / computing(&least) - 1.0),
        least.0.label()
    )
}

/// Gives the sampled launches' processes the ranks the launch trace found, so that a
/// finding the ranks share says it is on N ranks. The traced run and ncu's are two runs of
/// the job, with other pids; a launcher starts its ranks in order in both, so the traced
/// processes and the sampled ones, each by pid, pair in order, when as many launched
/// kernels. Otherwise they stay processes.
pub fn name_ranks(sampled: &mut [ingest::Launch], every: &ingest::Profile) {
    let traced: std::collections::BTreeSet<(u64, ingest::Process)> = (every.launches.iter())
        .flat_map(|l| l.processes.iter().map(|p| (p.pid, *p)))
        .collect();
    let pids: std::collections::BTreeSet<u64> = (sampled.iter())
        .flat_map(|l| l.processes.iter().map(|p| p.pid))
        .collect();
    if traced.len() < 2
        || traced.len() != pids.len()
        || traced.iter().any(|(_, p)| p.rank.is_none())
    {
        return;
    }
    let rank_of: std::collections::HashMap<u64, Option<u64>> = (pids.iter().copied())
        .zip(traced.iter().map(|(_, p)| p.rank))
        .collect();
    for l in sampled {
        for p in &mut l.processes {
            p.rank = rank_of[&p.pid];
        }
        l.processes.sort_unstable();
    }
}

/// Where launches ran, as the note tells ranks apart: by process where several launched
/// kernels, and by device.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Where {
    process: Option<ingest::Process>,
    device: Option<u64>,
}

impl Where {
    /// `rank 1 (device 0)`, `device 1`, or nothing where neither is known.
    fn label(&self) -> String {
        match (self.process, self.device) {
            (Some(p), Some(d)) => format!("{p} (device {d})"),
            (Some(p), None) => p.to_string(),
            (None, Some(d)) => format!("device {d}"),
            (None, None) => String::new(),
        }
    }
}

impl std::fmt::Display for Where {
    /// ` on ` and its label, where it has one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.label().as_str() {
            "" => Ok(()),
            label => write!(f, " on {label}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nccl_kernels_are_known_by_their_base_name() {
        for name in [
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            "ncclKernel_SendRecv_RING",
            "void ncclKernel<1>(int)",
        ] {
            assert!(is_nccl(name), "{name}");
        }
        for name in [
            "gemm_nccl_like(float *)",
            "at::native::nccl_free(int)",
            "matmul(int)",
        ] {
            assert!(!is_nccl(name), "{name}");
        }
    }

    /// Launches on two devices, as a two-rank trace holds them: `nccl_ns` of NCCL's and
    /// `gemm_ns` of a GEMM on each.
    fn two_ranks(nccl_ns: [f64; 2], gemm_ns: [f64; 2]) -> ingest::Profile {
        let mut launches = Vec::new();
        for device in 0..2 {
            for (name, ns) in [
                (
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                    nccl_ns[device],
                ),
                ("gemm(float *)", gemm_ns[device]),
            ] {
                let mut l = ingest::Launch::of_shape(0, name.into(), [8, 1, 1], [256, 1, 1], 1);
                l.metrics.insert("duration_ns", ns);
                l.device_ordinal = Some(device as u64);
                launches.push(l);
            }
        }
        ingest::Profile::of_trace(launches)
    }

    #[test]
    fn each_devices_nccl_share_is_said_and_what_to_do_when_it_outweighs_compute() {
        let even = share_note(&two_ranks([25.0, 30.0], [75.0, 70.0]), false).unwrap();
        assert!(
            even.starts_with(
                "the launch trace: the GPU time by device: 50.0% on device 0, 50.0% on \
                 device 1; NCCL's share of each device's time: 25.0% on device 0, 30.0% on \
                 device 1"
            ),
            "{even}"
        );
        assert!(even.contains("not profiled"), "{even}");
        assert!(!even.contains("outweighs"), "{even}");
        assert!(!even.contains("Uneven"), "{even}");
        let heavy = share_note(&two_ranks([60.0, 62.0], [40.0, 41.0]), true).unwrap();
        assert!(heavy.contains("bucket_cap_mb"), "{heavy}");
        assert!(!heavy.contains("Uneven"), "{heavy}");
        // Rank 1's 60% in NCCL is its wait for rank 0, which computes 75 against its 40:
        // the work is uneven, and the communication itself is rank 0's 25%.
        let uneven = share_note(&two_ranks([25.0, 60.0], [75.0, 40.0]), true).unwrap();
        assert!(!uneven.contains("bucket_cap_mb"), "{uneven}");
        assert!(
            uneven.contains(
                "Uneven work: device 0 computes 88% more than device 1 outside NCCL, and the \
                 others wait for it in the collectives"
            ),
            "{uneven}"
        );
        assert!(!heavy.contains("not profiled"), "{heavy}");
        // Two devices and no NCCL: each device's share alone.
        let apart = share_note(&two_ranks([0.0, 0.0], [3.0, 1.0]), false).unwrap();
        assert_eq!(
            apart,
            "the launch trace: the GPU time by device: 75.0% on device 0, 25.0% on device 1"
        );
        // Ranks shown one GPU each as device 0: told apart by process, named by rank.
        let mut ranked = two_ranks([25.0, 60.0], [75.0, 40.0]);
        for (k, l) in ranked.launches.iter_mut().enumerate() {
            let rank = l.device_ordinal.unwrap();
            l.device_ordinal = Some(0);
            l.processes = vec![ingest::Process {
                rank: Some(rank),
                pid: 100 - k as u64 / 2,
            }];
        }
        let note = share_note(&ranked, false).unwrap();
        assert!(
            note.starts_with(
                "the launch trace: the GPU time by rank: 50.0% on rank 0 (device 0), 50.0% on \
                 rank 1 (device 0); NCCL's share of each rank's time: 25.0% on rank 0 (device \
                 0), 60.0% on rank 1 (device 0)"
            ),
            "{note}"
        );
        // Processes the launcher did not number: by pid.
        ranked.launches.iter_mut().for_each(|l| {
            l.processes[0].rank = None;
        });
        let note = share_note(&ranked, false).unwrap();
        assert!(
            note.starts_with(
                "the launch trace: the GPU time by process: 50.0% on process 99 (device 0), \
                 50.0% on process 100 (device 0)"
            ),
            "{note}"
        );
        // ncu's run of the job, its pids its own: its processes take the ranks in pid
        // order, as many as the trace found; a third process leaves them processes.
        let sampled_in = |pids: &[u64]| -> Vec<ingest::Launch> {
            (pids.iter())
                .map(|&pid| {
                    let mut l = ingest::Launch::of_shape(0, "gemm".into(), [1; 3], [1; 3], 1);
                    l.processes = vec![ingest::Process { rank: None, pid }];
                    l
                })
                .collect()
        };
        ranked.launches.iter_mut().for_each(|l| {
            l.processes[0].rank = Some(100 - l.processes[0].pid);
        });
        let mut sampled = sampled_in(&[501, 500, 501]);
        name_ranks(&mut sampled, &ranked);
        let ranks: Vec<Option<u64>> = sampled.iter().map(|l| l.processes[0].rank).collect();
        assert_eq!(ranks, [Some(0), Some(1), Some(0)]);
        let mut three = sampled_in(&[500, 501, 502]);
        name_ranks(&mut three, &ranked);
        assert!(three.iter().all(|l| l.processes[0].rank.is_none()));
        // One device and no NCCL: nothing to say.
        let mut one = two_ranks([0.0, 0.0], [3.0, 1.0]);
        one.launches
            .iter_mut()
            .for_each(|l| l.device_ordinal = Some(0));
        assert_eq!(share_note(&one, false), None);
    }
}
