//! NCCL's kernels, which ncu does not profile unless asked (`--profile-nccl`): a collective
//! waits for its peer ranks, which ncu's serialized replay has stopped, so the run hangs
//! (NVIDIA/nccl#536). The launch trace still times them; the report gives their share of
//! each device's GPU time instead.

use crate::ingest;

/// ncu's name filter for every kernel but NCCL's, by function or demangled name (a
/// template's demangled name starts with its return type). ncu's regular expressions take
/// the negative lookahead (lab/runs/2026-12-03-ddp-one-gpu.txt).
pub const NOT_NCCL: &str = "regex:^(?!(void )?nccl)";

/// Whether a kernel is one of NCCL's (`ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)`,
/// `ncclKernel_...`), by its base name.
pub fn is_nccl(name: &str) -> bool {
    crate::kernel::base_name(name).starts_with("nccl")
}

/// NCCL's share of each device's GPU time in the launch trace, when it has NCCL kernels;
/// why they were not profiled, unless they were; and where communication outweighs
/// computation on a device, the levers that send less often.
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
    if by_device.values().all(|(_, nccl)| *nccl == 0.0) {
        return None;
    }
    let shares: Vec<String> = by_device
        .iter()
        .map(|(device, (all, nccl))| {
            let share = 100.0 * nccl / all.max(f64::MIN_POSITIVE);
            match device {
                Some(d) => format!("{share:.1}% on device {d}"),
                None => format!("{share:.1}%"),
            }
        })
        .collect();
    let outweighs = by_device.values().any(|(all, nccl)| 2.0 * nccl > *all);
    let mut note = format!(
        "NCCL's kernels took {} of the GPU time (the launch trace)",
        shares.join(", ")
    );
    if !profiled {
        note.push_str(
            "; they are not profiled: a collective waits for ranks that ncu's replay has \
             stopped, and the run would hang (--profile-nccl profiles them at that risk)",
        );
    }
    if outweighs {
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
            even.starts_with("NCCL's kernels took 25.0% on device 0, 30.0% on device 1"),
            "{even}"
        );
        assert!(even.contains("not profiled"), "{even}");
        assert!(!even.contains("outweighs"), "{even}");
        let heavy = share_note(&two_ranks([25.0, 60.0], [75.0, 40.0]), true).unwrap();
        assert!(heavy.contains("bucket_cap_mb"), "{heavy}");
        assert!(!heavy.contains("not profiled"), "{heavy}");
        assert_eq!(share_note(&two_ranks([0.0, 0.0], [1.0, 1.0]), false), None);
    }
}
