//! The GPUs the driver lists (`nvidia-smi --query-gpu=name`), for what the sample's plan
//! must know of them before ncu runs: their SM count, which tells a grid under one wave
//! from one of several.

/// The SMs of every GPU the driver lists, where all are GPUs of gpulint's table with the
/// same count; `None` without nvidia-smi, or where a GPU is unknown or they differ (the
/// program's GPU cannot be told from the list: CUDA numbers them its own way).
pub fn sm_count() -> Option<u64> {
    let out = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name", "--format=csv,noheader"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    sm_count_of(&String::from_utf8_lossy(&out.stdout))
}

/// [`sm_count`] of nvidia-smi's list, one name a line.
fn sm_count_of(listing: &str) -> Option<u64> {
    let mut counts = (listing.lines().map(str::trim))
        .filter(|name| !name.is_empty())
        .map(|name| {
            crate::roofline::gpus::lookup(name)
                .and_then(|g| g.shape.as_ref())
                .map(|s| u64::from(s.sms))
        });
    let first = counts.next()??;
    counts.all(|c| c == Some(first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::sm_count_of;

    #[test]
    fn one_count_for_gpus_of_one_kind_and_none_otherwise() {
        assert_eq!(sm_count_of("NVIDIA H200\nNVIDIA H200\n"), Some(132));
        assert_eq!(sm_count_of("NVIDIA H200\nNVIDIA A100-SXM4-80GB\n"), None);
        assert_eq!(sm_count_of("NVIDIA H200\nSome Future GPU\n"), None);
        assert_eq!(sm_count_of(""), None);
    }
}
