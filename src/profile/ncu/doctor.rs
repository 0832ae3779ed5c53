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
    let found = super::locate::find_ncu(ncu);
    let checked = found
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|path| Ok((path, super::locate::check_is_ncu(path)?)));
    match checked {
        Ok((path, version)) => out.push(Check {
            name: "ncu",
            status: Status::Pass,
            detail: format!("{} ({version})", path.display()),
        }),
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
    out.extend(launch_tracer_checks(found.ok().as_deref()));
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

/// What the launch tracer needs: a C++ compiler, a CUPTI the driver supports, and a cache
/// folder it may trust (with any failed build recorded there).
fn launch_tracer_checks(ncu: Option<&std::path::Path>) -> Vec<Check> {
    use super::tracer::{self, cache, cupti};
    let mut out = Vec::new();
    if std::env::var(tracer::TRACER_ENV).as_deref() == Ok("off") {
        out.push(Check {
            name: "launch tracer",
            status: Status::Note,
            detail: format!("{}=off: programs run once, under ncu", tracer::TRACER_ENV),
        });
        return out;
    }
    let driver = cupti::driver_cuda_version();
    match cupti::choose(ncu, driver) {
        Ok(c) => out.push(Check {
            name: "CUPTI",
            status: Status::Pass,
            detail: format!(
                "{} (CUPTI {}, {}; driver's CUDA {})",
                c.path.display(),
                c.version
                    .map_or("version unknown".into(), |v| v.to_string()),
                c.found,
                driver.map_or("unknown".into(), |v| v.to_string())
            ),
        }),
        Err(why) => out.push(Check {
            name: "CUPTI",
            status: Status::Warn,
            detail: format!(
                "{why}; without it every launch is not counted, and the sample stands alone"
            ),
        }),
    }
    let Some(compiler) = tracer::compiler() else {
        out.push(Check {
            name: "C++ compiler",
            status: Status::Warn,
            detail: "none on PATH (c++, g++, clang++): the launch tracer cannot be built".into(),
        });
        return out;
    };
    let toolchain = cache::Toolchain::probe(&compiler);
    out.push(Check {
        name: "C++ compiler",
        status: Status::Pass,
        detail: format!(
            "{} ({}; C++ runtime {})",
            toolchain.compiler.display(),
            toolchain.version,
            if toolchain.runtime == "static" {
                "linked statically".to_string()
            } else {
                toolchain.runtime.clone()
            }
        ),
    });
    out.push(cache_check(&toolchain));
    out
}

/// The tracer's cache folder: trusted, built, or holding a recorded failure.
fn cache_check(toolchain: &super::tracer::cache::Toolchain) -> Check {
    use super::tracer::cache;
    let Some(dir) = crate::profile::cache_folder::cache_dir() else {
        return Check {
            name: "tracer cache",
            status: Status::Warn,
            detail: "neither XDG_CACHE_HOME nor HOME is set: the tracer is built for each run"
                .into(),
        };
    };
    let (status, detail) = if let Some(failed) = cache::recorded_failure_of(toolchain, &dir) {
        (Status::Warn, failed)
    } else if !dir.exists() {
        (
            Status::Pass,
            format!("{} (created at the first run)", dir.display()),
        )
    } else if let Some(why) = crate::profile::cache_folder::untrusted(&dir, true) {
        (
            Status::Warn,
            format!("{why}: not used; the tracer is built privately for each run"),
        )
    } else {
        match cache::cached_library(toolchain, &dir) {
            Some(lib) => match crate::profile::cache_folder::untrusted(&lib, false) {
                None => (Status::Pass, format!("{} (built)", lib.display())),
                Some(why) => (Status::Warn, format!("{why}: not loaded; delete it")),
            },
            None => (
                Status::Pass,
                format!("{} (the tracer is built at the first run)", dir.display()),
            ),
        }
    };
    Check {
        name: "tracer cache",
        status,
        detail,
    }
}
