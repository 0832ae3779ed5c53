//! The GPUs the driver lists (`nvidia-smi --query-gpu=name`), for what the sample's plan
//! must know of them before ncu runs: their SM count and warp slots per SM, which tell a
//! grid under one block per SM, under one wave of resident blocks, and of whole waves.

/// What the sample's plan knows of the GPU before ncu runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub sms: u64,
    pub max_warps_per_sm: u64,
}

/// The shape of every GPU the driver lists, where all are GPUs of gpulint's table with the
/// same shape; `None` without nvidia-smi, or where a GPU is unknown or they differ (the
/// program's GPU cannot be told from the list: CUDA numbers them its own way).
pub fn shape() -> Option<Shape> {
    shape_of(&nvidia_smi(&["--query-gpu=name", "--format=csv,noheader"])?)
}

/// How long nvidia-smi may take: a driver in trouble can hang it, and the run must not.
const NVIDIA_SMI_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What `nvidia-smi ARGS` prints, where it succeeds within [`NVIDIA_SMI_LIMIT`].
pub fn nvidia_smi(args: &[&str]) -> Option<String> {
    output_within("nvidia-smi".as_ref(), args, NVIDIA_SMI_LIMIT)
}

/// What `program ARGS` prints, where it succeeds within `limit`; killed and `None` past
/// it. Its output is read as it comes (a long one cannot fill the pipe and stall it), and
/// a process that keeps the pipe open after it ends (a child it left) is not waited for.
fn output_within(
    program: &std::ffi::OsStr,
    args: &[&str],
    limit: std::time::Duration,
) -> Option<String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let (send, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = send.send(std::io::Read::read_to_string(&mut stdout, &mut text).map(|_| text));
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < limit => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let left = limit.saturating_sub(started.elapsed());
    let text = read.recv_timeout(left).ok()?.ok()?;
    status.success().then_some(text)
}

/// [`shape`] of nvidia-smi's list, one name a line.
fn shape_of(listing: &str) -> Option<Shape> {
    let mut shapes = (listing.lines().map(str::trim))
        .filter(|name| !name.is_empty())
        .map(|name| {
            crate::roofline::gpus::lookup(name)
                .and_then(|g| g.shape.as_ref())
                .map(|s| Shape {
                    sms: u64::from(s.sms),
                    max_warps_per_sm: u64::from(s.max_warps_per_sm),
                })
        });
    let first = shapes.next()??;
    shapes.all(|c| c == Some(first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::{Shape, shape_of};

    /// A program that never ends is stopped and gives nothing, as does one that ends
    /// leaving a child that holds its output open; one that ends gives what it printed.
    #[cfg(unix)]
    #[test]
    fn a_hung_program_is_stopped_within_its_limit() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, body: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path
        };
        let limit = std::time::Duration::from_millis(500);
        let started = std::time::Instant::now();
        let hung = script("hung", "echo 'NVIDIA H200'\nexec sleep 600");
        assert_eq!(super::output_within(hung.as_os_str(), &[], limit), None);
        let left = script("left", "echo 'NVIDIA H200'\nsleep 3 &");
        assert_eq!(super::output_within(left.as_os_str(), &[], limit), None);
        assert!(started.elapsed() < 4 * limit, "{:?}", started.elapsed());
        let quick = script("quick", "echo 'NVIDIA H200'");
        assert_eq!(
            super::output_within(quick.as_os_str(), &[], limit).as_deref(),
            Some("NVIDIA H200\n")
        );
    }

    #[test]
    fn one_shape_for_gpus_of_one_kind_and_none_otherwise() {
        let h200 = Shape {
            sms: 132,
            max_warps_per_sm: 64,
        };
        assert_eq!(shape_of("NVIDIA H200\nNVIDIA H200\n"), Some(h200));
        assert_eq!(shape_of("NVIDIA H200\nNVIDIA A100-SXM4-80GB\n"), None);
        assert_eq!(shape_of("NVIDIA H200\nSome Future GPU\n"), None);
        assert_eq!(shape_of(""), None);
    }
}
