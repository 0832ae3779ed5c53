//! What gpulint knows of common GPUs, for exports that do not say: peak FP32/FP64
//! throughput and DRAM bandwidth for the roofline, and the SM count and warps per SM for
//! the launch-shape rules. Matched on the device name in the export (peaks also by `--gpu
//! NAME`). Peaks are the vendor's dense (non-tensor) figures at boost clock.

/// A device's SMs and warp slots, for exports that name the device but not its shape
/// (the GUI's Summary page, a details page without Launch Statistics).
pub struct DeviceShape {
    pub sms: u32,
    pub max_warps_per_sm: u32,
    /// FP32 lanes per SM at the device's compute capability (CUDA C++ Programming Guide,
    /// arithmetic instruction throughput): the SM count times these, times two FLOPs per
    /// FMA, times the boost clock, is the datasheet's FP32 peak. Read by the table's own
    /// check of its SM counts (tests below).
    pub fp32_lanes_per_sm: u32,
    pub source: &'static str,
}

pub struct GpuPeaks {
    /// Lower-case fragments that must all appear in the device name.
    pub matches: &'static [&'static str],
    pub name: &'static str,
    /// The chip as ncu names it (`--query-metrics --chip`), for `--chip h200`.
    pub chip: &'static str,
    pub fp32_flops: f64,
    pub fp64_flops: f64,
    pub dram_bytes_per_s: f64,
    pub source: &'static str,
    /// `None` where one name covers devices of different SM counts, or no source gave it.
    pub shape: Option<DeviceShape>,
}

const T: f64 = 1e12;

/// More specific entries first: "h100 pcie" must win over "h100".
pub static GPUS: &[GpuPeaks] = &[
    GpuPeaks {
        matches: &["gb200"],
        name: "NVIDIA GB200 (per B200 GPU, 1,200 W)",
        chip: "gb100",
        fp32_flops: 90.0 * T,
        fp64_flops: 45.0 * T,
        dram_bytes_per_s: 8.0 * T,
        source: "NVIDIA GB200 NVL72 datasheet (2024), per GPU at the superchip's 1,200 W: FP32 90 TFLOPS, FP64 45 TFLOPS, HBM3e 8 TB/s",
        shape: None,
    },
    GpuPeaks {
        matches: &["b200"],
        name: "NVIDIA B200 (HGX, 1,000 W)",
        chip: "gb100",
        fp32_flops: 80.0 * T,
        fp64_flops: 40.0 * T,
        dram_bytes_per_s: 8.0 * T,
        source: "NVIDIA HGX B200 / DGX B200 datasheet (2024), per GPU at 1,000 W: FP32 80 TFLOPS, FP64 40 TFLOPS, HBM3e 8 TB/s (third-party tables give 75 TFLOPS for other board power settings)",
        shape: None,
    },
    GpuPeaks {
        matches: &["h200"],
        name: "NVIDIA H200 SXM",
        chip: "gh100",
        fp32_flops: 67.0 * T,
        fp64_flops: 34.0 * T,
        dram_bytes_per_s: 4.8 * T,
        source: "NVIDIA H200 Tensor Core GPU datasheet (2024): FP32 67 TFLOPS, FP64 34 TFLOPS, 4.8 TB/s",
        shape: Some(DeviceShape {
            sms: 132,
            max_warps_per_sm: 64,
            fp32_lanes_per_sm: 128,
            source: "launch__sm_count 132 and device__attribute_max_warps_per_multiprocessor 64 in ncu 2025.3.1's H200 captures (fixtures/h200-zoo)",
        }),
    },
    GpuPeaks {
        matches: &["h100", "nvl"],
        name: "NVIDIA H100 NVL",
        chip: "gh100",
        fp32_flops: 60.0 * T,
        fp64_flops: 30.0 * T,
        dram_bytes_per_s: 3.9 * T,
        source: "NVIDIA H100 Tensor Core GPU datasheet (2023): H100 NVL FP32 60 TFLOPS, FP64 30 TFLOPS, 3.9 TB/s",
        shape: None,
    },
    GpuPeaks {
        matches: &["h100", "pcie"],
        name: "NVIDIA H100 PCIe",
        chip: "gh100",
        fp32_flops: 51.0 * T,
        fp64_flops: 26.0 * T,
        dram_bytes_per_s: 2.0 * T,
        source: "NVIDIA H100 Tensor Core GPU datasheet (2023): PCIe FP32 51 TFLOPS, FP64 26 TFLOPS, 2 TB/s",
        shape: Some(DeviceShape {
            sms: 114,
            max_warps_per_sm: 64,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA H100 Tensor Core GPU architecture whitepaper (2022): H100 PCIe 114 SMs; 64 warps per SM at compute capability 9.0",
        }),
    },
    GpuPeaks {
        matches: &["h100"],
        name: "NVIDIA H100 SXM",
        chip: "gh100",
        fp32_flops: 67.0 * T,
        fp64_flops: 34.0 * T,
        dram_bytes_per_s: 3.35 * T,
        source: "NVIDIA H100 Tensor Core GPU datasheet (2023): SXM FP32 67 TFLOPS, FP64 34 TFLOPS, 3.35 TB/s",
        shape: Some(DeviceShape {
            sms: 132,
            max_warps_per_sm: 64,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA H100 Tensor Core GPU architecture whitepaper (2022): H100 SXM5 132 SMs; 64 warps per SM at compute capability 9.0",
        }),
    },
    GpuPeaks {
        matches: &["a100", "80"],
        name: "NVIDIA A100 80GB SXM",
        chip: "ga100",
        fp32_flops: 19.5 * T,
        fp64_flops: 9.7 * T,
        dram_bytes_per_s: 2.039 * T,
        source: "NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5 TFLOPS, FP64 9.7 TFLOPS, 80GB SXM 2,039 GB/s",
        shape: Some(DeviceShape {
            sms: 108,
            max_warps_per_sm: 64,
            fp32_lanes_per_sm: 64,
            source: "NVIDIA A100 Tensor Core GPU architecture whitepaper (2020): 108 SMs; 64 warps per SM at compute capability 8.0",
        }),
    },
    GpuPeaks {
        matches: &["a100"],
        name: "NVIDIA A100 40GB",
        chip: "ga100",
        fp32_flops: 19.5 * T,
        fp64_flops: 9.7 * T,
        dram_bytes_per_s: 1.555 * T,
        source: "NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5 TFLOPS, FP64 9.7 TFLOPS, 40GB 1,555 GB/s",
        shape: Some(DeviceShape {
            sms: 108,
            max_warps_per_sm: 64,
            fp32_lanes_per_sm: 64,
            source: "NVIDIA A100 Tensor Core GPU architecture whitepaper (2020): 108 SMs; 64 warps per SM at compute capability 8.0",
        }),
    },
    GpuPeaks {
        matches: &["l4"],
        name: "NVIDIA L4",
        chip: "ad104",
        fp32_flops: 30.3 * T,
        fp64_flops: 0.473 * T,
        dram_bytes_per_s: 0.3 * T,
        source: "NVIDIA L4 Tensor Core GPU datasheet (2023): FP32 30.3 TFLOPS, 300 GB/s; FP64 at 1/64 of FP32",
        shape: Some(DeviceShape {
            sms: 58,
            max_warps_per_sm: 48,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA L4 datasheet (2023): 7,424 CUDA cores, 128 per SM at compute capability 8.9 = 58 SMs; 48 warps per SM",
        }),
    },
    GpuPeaks {
        matches: &["t4"],
        name: "NVIDIA T4",
        chip: "tu104",
        fp32_flops: 8.1 * T,
        fp64_flops: 0.253 * T,
        dram_bytes_per_s: 0.32 * T,
        source: "NVIDIA T4 Tensor Core GPU datasheet (2019): FP32 8.1 TFLOPS, 320 GB/s; FP64 at 1/32 of FP32",
        shape: Some(DeviceShape {
            sms: 40,
            max_warps_per_sm: 32,
            fp32_lanes_per_sm: 64,
            source: "NVIDIA Turing architecture whitepaper (2018): Tesla T4 40 SMs (also ncu's `# SMs` in fixtures/wild/t4_rmsnorm_text.log); 32 warps per SM at compute capability 7.5",
        }),
    },
    GpuPeaks {
        matches: &["4090"],
        name: "NVIDIA GeForce RTX 4090",
        chip: "ad102",
        fp32_flops: 82.6 * T,
        fp64_flops: 1.29 * T,
        dram_bytes_per_s: 1.008 * T,
        source: "NVIDIA Ada Lovelace architecture whitepaper (2022): RTX 4090 FP32 82.6 TFLOPS, 1,008 GB/s; FP64 at 1/64",
        shape: Some(DeviceShape {
            sms: 128,
            max_warps_per_sm: 48,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA Ada Lovelace architecture whitepaper (2022): RTX 4090 128 SMs; 48 warps per SM at compute capability 8.9",
        }),
    },
    GpuPeaks {
        matches: &["l40s"],
        name: "NVIDIA L40S",
        chip: "ad102",
        fp32_flops: 91.6 * T,
        fp64_flops: 1.43 * T,
        dram_bytes_per_s: 0.864 * T,
        source: "NVIDIA L40S GPU datasheet (2023): FP32 91.6 TFLOPS, 864 GB/s; FP64 at 1/64 of FP32 (Ada)",
        shape: Some(DeviceShape {
            sms: 142,
            max_warps_per_sm: 48,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA L40S datasheet (2023): 18,176 CUDA cores, 128 per SM at compute capability 8.9 = 142 SMs; 48 warps per SM",
        }),
    },
    GpuPeaks {
        matches: &["6000", "ada"],
        name: "NVIDIA RTX 6000 Ada Generation",
        chip: "ad102",
        fp32_flops: 91.1 * T,
        fp64_flops: 1.42 * T,
        dram_bytes_per_s: 0.96 * T,
        source: "NVIDIA RTX 6000 Ada Generation datasheet (2022): FP32 91.1 TFLOPS, 960 GB/s; FP64 at 1/64 of FP32",
        shape: Some(DeviceShape {
            sms: 142,
            max_warps_per_sm: 48,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA RTX 6000 Ada Generation datasheet (2022): 18,176 CUDA cores, 128 per SM at compute capability 8.9 = 142 SMs; 48 warps per SM",
        }),
    },
    GpuPeaks {
        matches: &["5090"],
        name: "NVIDIA GeForce RTX 5090",
        chip: "gb202",
        fp32_flops: 104.8 * T,
        fp64_flops: 1.64 * T,
        dram_bytes_per_s: 1.792 * T,
        source: "NVIDIA RTX Blackwell GPU architecture whitepaper (2025): RTX 5090 FP32 104.8 TFLOPS, 1,792 GB/s; FP64 at 1/64 of FP32",
        shape: Some(DeviceShape {
            sms: 170,
            max_warps_per_sm: 48,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA RTX Blackwell GPU architecture whitepaper (2025): RTX 5090 170 SMs; 48 warps per SM at compute capability 12.0",
        }),
    },
    GpuPeaks {
        matches: &["a30"],
        name: "NVIDIA A30",
        chip: "ga100",
        fp32_flops: 10.3 * T,
        fp64_flops: 5.2 * T,
        dram_bytes_per_s: 0.933 * T,
        source: "NVIDIA A30 Tensor Core GPU datasheet (2021): FP32 10.3 TFLOPS, FP64 5.2 TFLOPS, 933 GB/s",
        shape: Some(DeviceShape {
            sms: 56,
            max_warps_per_sm: 64,
            fp32_lanes_per_sm: 64,
            source: "NVIDIA A30 datasheet (2021): 3,584 CUDA cores, 64 per SM at compute capability 8.0 = 56 SMs; 64 warps per SM",
        }),
    },
    GpuPeaks {
        matches: &["a10"],
        name: "NVIDIA A10",
        chip: "ga102",
        fp32_flops: 31.2 * T,
        fp64_flops: 0.49 * T,
        dram_bytes_per_s: 0.6 * T,
        source: "NVIDIA A10 Tensor Core GPU datasheet (2021): FP32 31.2 TFLOPS, 600 GB/s; FP64 at 1/64 of FP32 (GA102)",
        shape: Some(DeviceShape {
            sms: 72,
            max_warps_per_sm: 48,
            fp32_lanes_per_sm: 128,
            source: "NVIDIA A10 datasheet (2021): 9,216 CUDA cores, 128 per SM at compute capability 8.6 = 72 SMs; 48 warps per SM",
        }),
    },
    GpuPeaks {
        matches: &["orin"],
        name: "NVIDIA Jetson AGX Orin 64GB",
        chip: "ga10b",
        fp32_flops: 5.3 * T,
        fp64_flops: 0.083 * T,
        dram_bytes_per_s: 0.2048 * T,
        source: "NVIDIA Jetson AGX Orin series datasheet (2023): 2,048 CUDA cores at up to 1.3 GHz (FP32 2 x 2,048 x 1.3 GHz = 5.3 TFLOPS), LPDDR5 204.8 GB/s; FP64 at 1/64 of FP32",
        shape: None,
    },
];

/// The table entry for a device name ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB").
pub fn lookup(device: &str) -> Option<&'static GpuPeaks> {
    matching(device).into_iter().next()
}

/// The chip of a GPU named as people name it (`h200`, `a100`, `rtx 4090`), when every
/// entry the name could mean has the same chip: what `--chip` takes besides chip names.
pub fn chip_named(input: &str) -> Option<&'static str> {
    let mut chips: Vec<&str> = named(input).iter().map(|g| g.chip).collect();
    chips.dedup();
    match chips[..] {
        [chip] => Some(chip),
        _ => None,
    }
}

/// The entries a name typed by the user (`--gpu`) could mean: those whose name has every
/// word of it. `A100` means both A100s, and the choice between them is the user's.
pub fn named(input: &str) -> Vec<&'static GpuPeaks> {
    let words = |s: &str| -> Vec<String> {
        s.to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect()
    };
    let wanted = words(input);
    GPUS.iter()
        .filter(|g| {
            let have = words(g.name);
            !wanted.is_empty() && wanted.iter().all(|w| have.contains(w))
        })
        .collect()
}

/// Every entry a device name matches, most specific first.
pub fn matching(device: &str) -> Vec<&'static GpuPeaks> {
    let d = device.to_ascii_lowercase();
    // A laptop part shares its desktop name but has fewer SMs and lower clocks
    // ("NVIDIA GeForce RTX 4090 Laptop GPU": 76 SMs, not 128).
    if ["laptop", "mobile", "max-q"].iter().any(|w| d.contains(w)) {
        return Vec::new();
    }
    // "l4" must not match inside other words: require it to stand alone.
    let words: Vec<&str> = d.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    GPUS.iter()
        .filter(|g| {
            g.matches.iter().all(|m| {
                if ["l4", "t4", "80", "a10", "a30", "6000"].contains(m) {
                    words
                        .iter()
                        .any(|w| w == m || (*m == "80" && w.starts_with("80")))
                } else {
                    d.contains(m)
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{GPUS, lookup};

    /// Each SM count agrees with its entry's FP32 peak: the peak over 2 FLOPs x SMs x
    /// FP32 lanes per SM is a boost clock a GPU of these years runs at. It catches a
    /// count off by a factor of two (CUDA cores taken for SMs, the wrong lanes per SM).
    #[test]
    fn sm_counts_agree_with_the_fp32_peaks() {
        for g in GPUS {
            let Some(shape) = &g.shape else { continue };
            let lanes = 2.0 * f64::from(shape.sms) * f64::from(shape.fp32_lanes_per_sm);
            let clock_ghz = g.fp32_flops / lanes / 1e9;
            assert!(
                (1.2..=2.7).contains(&clock_ghz),
                "{}: {} SMs give a {clock_ghz:.2} GHz clock",
                g.name,
                shape.sms
            );
            assert!([32, 48, 64].contains(&shape.max_warps_per_sm), "{}", g.name);
        }
    }

    #[test]
    fn device_names_match_their_entries() {
        let name = |d: &str| lookup(d).map(|g| g.name);
        assert_eq!(name("NVIDIA H200"), Some("NVIDIA H200 SXM"));
        assert_eq!(name("NVIDIA H100 PCIe"), Some("NVIDIA H100 PCIe"));
        assert_eq!(name("NVIDIA H100 80GB HBM3"), Some("NVIDIA H100 SXM"));
        assert_eq!(name("NVIDIA A100-SXM4-80GB"), Some("NVIDIA A100 80GB SXM"));
        assert_eq!(name("NVIDIA A100-SXM4-40GB"), Some("NVIDIA A100 40GB"));
        assert_eq!(name("NVIDIA L4"), Some("NVIDIA L4"));
        assert_eq!(name("Tesla T4"), Some("NVIDIA T4"));
        assert_eq!(
            name("NVIDIA GeForce RTX 4090"),
            Some("NVIDIA GeForce RTX 4090")
        );
        assert_eq!(name("NVIDIA L40S"), Some("NVIDIA L40S"));
        assert_eq!(name("NVIDIA B200"), Some("NVIDIA B200 (HGX, 1,000 W)"));
        assert_eq!(
            name("NVIDIA GB200"),
            Some("NVIDIA GB200 (per B200 GPU, 1,200 W)")
        );
        assert_eq!(name("NVIDIA H100 NVL"), Some("NVIDIA H100 NVL"));
        assert_eq!(name("NVIDIA A10"), Some("NVIDIA A10"));
        assert_eq!(name("NVIDIA A30"), Some("NVIDIA A30"));
        assert_eq!(
            name("NVIDIA GeForce RTX 5090"),
            Some("NVIDIA GeForce RTX 5090")
        );
        assert_eq!(
            name("NVIDIA RTX 6000 Ada Generation"),
            Some("NVIDIA RTX 6000 Ada Generation")
        );
        assert_eq!(name("Orin (nvgpu)"), Some("NVIDIA Jetson AGX Orin 64GB"));
        assert_eq!(name("NVIDIA RTX A6000"), None);
        assert_eq!(name("NVIDIA GeForce RTX 4090 Laptop GPU"), None);
        // What a user types: the names it could mean.
        let named = |n: &str| -> Vec<&str> { super::named(n).iter().map(|g| g.name).collect() };
        assert_eq!(named("A100"), ["NVIDIA A100 80GB SXM", "NVIDIA A100 40GB"]);
        assert_eq!(named("a100 40gb"), ["NVIDIA A100 40GB"]);
        assert_eq!(named("L4"), ["NVIDIA L4"]);
        assert_eq!(named("H100").len(), 3);
    }
}
