//! `gpulint doctor`: can this machine profile? Each check passes or says how to fix it.

use std::process::Command;

#[derive(Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Warn,
    Fail,
    /// Not checked, because a check it depends on failed.
    Skip,
    /// Advice, not a check.
    Note,
}

pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub detail: String,
}

fn run(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub fn checks(ncu: Option<&str>) -> Vec<Check> {
    let mut out = Vec::new();
    match super::locate::find_ncu(ncu) {
        Ok(path) => {
            let version = run(&path.display().to_string(), &["--version"])
                .and_then(|v| v.lines().last().map(str::to_string))
                .unwrap_or_else(|| "version unknown (`ncu --version` failed)".into());
            out.push(Check {
                name: "ncu",
                status: Status::Pass,
                detail: format!("{} ({version})", path.display()),
            });
        }
        Err(e) => out.push(Check {
            name: "ncu",
            status: Status::Fail,
            detail: e.message,
        }),
    }
    match run("nvidia-smi", &["-L"]) {
        Some(list) if !list.is_empty() => {
            out.push(Check { name: "GPU", status: Status::Pass, detail: list.lines().next().unwrap_or("").to_string() });
        }
        _ => out.push(Check {
            name: "GPU",
            status: Status::Fail,
            detail: "no GPU visible (`nvidia-smi -L` failed or listed none): install the NVIDIA driver, \
                     or run on a machine with a GPU; `gpulint check` works without one"
                .into(),
        }),
    }
    // Counter permission matters only where ncu can profile a GPU: say only what was checked.
    if out.iter().all(|c| c.status == Status::Pass) {
        out.push(counter_permission());
    } else {
        out.push(Check {
            name: "counters",
            status: Status::Skip,
            detail: "not checked: needs ncu and a GPU".into(),
        });
    }
    out.push(Check {
        name: "clocks",
        status: Status::Note,
        detail: "ncu locks clocks to base by default (--clock-control base), so durations read lower \
                 than in production but repeat well; on shared machines or where clocks must not be \
                 touched, pass --ncu-arg=--clock-control --ncu-arg=none"
            .into(),
    });
    out
}

/// Counters are readable by root, or by anyone when the driver does not restrict them.
fn counter_permission() -> Check {
    let params = std::fs::read_to_string("/proc/driver/nvidia/params").ok();
    let restricted = params
        .as_deref()
        .and_then(|p| p.lines().find(|l| l.starts_with("RmProfilingAdminOnly")))
        .map(|l| l.trim().ends_with('1'));
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false);
    match (restricted, root) {
        (_, true) => Check { name: "counters", status: Status::Pass, detail: "running as root: counters readable".into() },
        (Some(false), _) => Check {
            name: "counters",
            status: Status::Pass,
            detail: "the driver lets all users read the counters".into(),
        },
        (Some(true), false) => Check {
            name: "counters",
            status: Status::Fail,
            detail: "the driver restricts counters to admin users: run as root, or set \
                     NVreg_RestrictProfilingToAdminUsers=0 (https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
                .into(),
        },
        (None, false) => Check {
            name: "counters",
            status: Status::Warn,
            detail: "cannot read /proc/driver/nvidia/params to tell; if ncu reports ERR_NVGPUCTRPERM, \
                     see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
                .into(),
        },
    }
}
