//! NCCL's kernels, which ncu does not profile unless asked (`--profile-nccl`): a collective
//! waits for its peer ranks, which ncu's serialized replay has stopped, so the run hangs
//! (NVIDIA/nccl#536). The launch trace still times them; the report gives their share of
//! each device's GPU time instead, and each device's share of the job's.

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

/// What the launch trace says of the devices, when a job ran on several or NCCL's kernels
/// ran: each device's share of the GPU time (a rank's, in a data-parallel job), NCCL's
/// share of each device's time, why they were not profiled unless they were, and where
/// communication outweighs computation on a device, the levers that send less often.
pub fn share_note(every: &ingest::Profile, profiled: bool) -> Option<String> {
    let mut by_device: std::collections::BTreeMap<Option<u64>, (f64, f64)> = Default::default();
    for l in &every.launches {
        let time = l.metrics.get("duration_ns").copied().unwrap_or(0.0) * l.count as f64;
        let device = by_device.entry(l.device_ordinal).or_default();
        device.0 += time;
        if is_nccl(&l.name) {
            device.1 += time;
        }
    }
    let several = by_device.len() > 1;
    let nccl = by_device.values().any(|(_, nccl)| *nccl > 0.0);
    if !several && !nccl {
        return None;
    }
    let total: f64 = by_device.values().map(|(all, _)| all).sum();
    let share = |part: f64, of: f64| 100.0 * part / of.max(f64::MIN_POSITIVE);
    let on = |device: &Option<u64>| device.map_or(String::new(), |d| format!(" on device {d}"));
    let mut parts = Vec::new();
    if several {
        let shares: Vec<String> = (by_device.iter())
            .map(|(device, (all, _))| format!("{:.1}%{}", share(*all, total), on(device)))
            .collect();
        parts.push(format!("the GPU time by device: {}", shares.join(", ")));
    }
    if nccl {
        let shares: Vec<String> = (by_device.iter())
            .map(|(device, (all, nccl))| format!("{:.1}%{}", share(*nccl, *all), on(device)))
            .collect();
        let mut said = if by_device.keys().any(Option::is_some) {
            format!("NCCL's share of each device's time: {}", shares.join(", "))
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
    if by_device.values().any(|(all, nccl)| 2.0 * nccl > *all) {
        note.push_str(
            ". Communication outweighs computation: larger gradient buckets (DDP's \
             bucket_cap_mb), overlapping it with the backward pass, or gradient accumulation \
             (no_sync) send less often",
        );
    }
    Some(note)
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
        ingest::Profile {
            file: "trace.csv".into(),
            page: ingest::Page::Trace,
            launches,
            notes: Vec::new(),
            source_blocks: Vec::new(),
        }
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
        let heavy = share_note(&two_ranks([25.0, 60.0], [75.0, 40.0]), true).unwrap();
        assert!(heavy.contains("bucket_cap_mb"), "{heavy}");
        assert!(!heavy.contains("not profiled"), "{heavy}");
        // Two devices and no NCCL: each device's share alone.
        let apart = share_note(&two_ranks([0.0, 0.0], [3.0, 1.0]), false).unwrap();
        assert_eq!(
            apart,
            "the launch trace: the GPU time by device: 75.0% on device 0, 25.0% on device 1"
        );
        // One device and no NCCL: nothing to say.
        let mut one = two_ranks([0.0, 0.0], [3.0, 1.0]);
        one.launches
            .iter_mut()
            .for_each(|l| l.device_ordinal = Some(0));
        assert_eq!(share_note(&one, false), None);
    }
}
