//! ncu's command line: the metrics, the sample's launch filter, the output, the program.

use super::{NcuOptions, Path, Sample};
use crate::profile::collectives;
use crate::profile::sample::Chosen;

/// Where ncu writes what it collects.
pub enum Output<'a> {
    /// The raw page as CSV, in base units, to `--log-file`.
    RawCsv,
    /// A report file, imported as the raw page afterwards: ncu then writes a line per
    /// profiled launch to `--log-file`, which the progress line counts (with `--csv` it
    /// writes none), for the same time (lab/runs/2026-11-30-tail-and-progress.txt).
    Report {
        path: &'a Path,
        /// With the source counters too (`--source`).
        source: Option<SourceSection<'a>>,
        /// Each profiled launch's source page printed to `--log-file` as well (ncu does
        /// both): no page to import afterwards, but no line per launch for the progress
        /// line either (`--csv`).
        print_pages: bool,
    },
    /// The source counters, and each profiled launch's source page printed to
    /// `--log-file` by the run itself: no report to import afterwards, whose one ncu start
    /// per page took 1.3-1.8 s (lab/runs/2026-12-03-source-cost.txt).
    SourcePage(SourceSection<'a>),
}

/// ncu's options that print each profiled launch's source page, CUDA lines with their SASS.
const PRINT_PAGES: [&str; 5] = ["--csv", "--page", "source", "--print-source", "cuda,sass"];

/// Which section collects the source counters.
#[derive(Clone, Copy)]
pub enum SourceSection<'a> {
    /// ncu's own SourceCounters, from its default folder.
    Ncu,
    /// gpulint's section of the columns it reads, in this folder
    /// ([`super::source_section`]).
    Own(&'a Path),
}

impl SourceSection<'_> {
    fn args(self) -> Vec<String> {
        match self {
            SourceSection::Own(dir) => vec![
                "--section-folder".into(),
                dir.display().to_string(),
                "--section".into(),
                super::source_section::IDENTIFIER.into(),
            ],
            SourceSection::Ncu => vec!["--section".into(), "SourceCounters".into()],
        }
    }

    /// gpulint's section where `folder` holds it, else ncu's.
    pub fn from_folder(folder: Option<&Path>) -> SourceSection<'_> {
        folder.map_or(SourceSection::Ncu, SourceSection::Own)
    }
}

impl Output<'_> {
    /// ncu's arguments for this output, before the log file.
    fn args(&self) -> Vec<String> {
        match self {
            Output::RawCsv => ["--csv", "--page", "raw", "--print-units", "base"]
                .map(String::from)
                .to_vec(),
            Output::Report {
                path,
                source,
                print_pages,
            } => {
                let mut args = if *print_pages {
                    PRINT_PAGES.map(String::from).to_vec()
                } else {
                    Vec::new()
                };
                args.extend(source.map(SourceSection::args).unwrap_or_default());
                args.extend(["-o".into(), path.display().to_string()]);
                args
            }
            Output::SourcePage(section) => {
                let mut args: Vec<String> = PRINT_PAGES.map(String::from).to_vec();
                args.extend(section.args());
                args
            }
        }
    }
}

/// ncu's arguments, up to and including the program and its arguments.
pub fn build_args(
    opts: &NcuOptions,
    metrics: &[&str],
    output: Output,
    log_file: &Path,
    program: &[std::ffi::OsString],
) -> Vec<std::ffi::OsString> {
    let mut args = output.args();
    args.extend([
        "--metrics".into(),
        metrics.join(","),
        "--log-file".into(),
        log_file.display().to_string(),
    ]);
    match (&opts.sample, &opts.kernel_name) {
        (
            Some(Sample::ByTime(Chosen {
                numbers,
                kernels: Some(kernels),
            })),
            _,
        ) => args.extend(chosen_kernels_args(kernels, numbers)),
        (Some(s @ (Sample::Spread | Sample::ByTime(_))), name) => args.extend(spread_args(
            name.as_deref(),
            &s.invocations(),
            &opts.extra_args,
            !opts.profile_nccl,
        )),
        (_, Some(k)) => args.extend(["--kernel-name".into(), k.clone()]),
        (_, None) if !opts.profile_nccl && !has_kernel_name(&opts.extra_args) => {
            args.extend(["--kernel-name".into(), collectives::NOT_NCCL.into()]);
        }
        (_, None) => {}
    }
    if let Some(n) = opts.launch_skip {
        args.extend(["--launch-skip".into(), n.to_string()]);
    }
    match (&opts.sample, opts.launch_count) {
        (Some(Sample::PerConfig(n)), _) => {
            if opts.kernel_name.is_none() && !has_kernel_name_base(&opts.extra_args) {
                args.extend(DEMANGLED_BASE.map(String::from));
            }
            args.extend([
                "--filter-mode".into(),
                "per-launch-config".into(),
                "--launch-count".into(),
                n.to_string(),
            ]);
        }
        // ncu is done once it has profiled the sample's last launch. Told so, it lets the
        // rest of the program run at its own speed: while a filter can still match after
        // a profiled launch, a training step took 1.2 s under ncu instead of 0.01 s
        // (lab/runs/2026-12-03-launch-count.txt). `--kill` ends the program there.
        (Some(Sample::Spread | Sample::ByTime(_)), _) => {
            if let Some(n) = opts.expected_launches {
                args.extend(["--launch-count".into(), n.to_string()]);
            }
            if opts.stop_after().is_some() {
                args.extend(["--kill".into(), "on".into()]);
            }
        }
        (None, Some(n)) => args.extend(["--launch-count".into(), n.to_string()]),
        // Profiled by the launch tracer in its own run; a run that falls back to ncu plans
        // a sample of its own.
        (Some(Sample::Traced(_)), _) | (None, None) => {}
    }
    if opts.target_processes_all {
        args.extend(["--target-processes".into(), "all".into()]);
    }
    args.extend(opts.extra_args.iter().cloned());
    // The program's words as the OS gave them: they need not be UTF-8.
    let mut args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    args.extend(program.iter().cloned());
    args
}

/// The spread: `--kernel-id` with a regex of launch numbers, counted per kernel. ncu ignores
/// `--kernel-name` beside `--kernel-id`, so a name goes into the id, matched as `-k` would
/// (by function name). Without one, launches are counted per demangled name: by function
/// name, two instances of one template share a count, and the second one launched is
/// never profiled (lab/runs/2026-11-30-kernel-id-names.txt).
pub(super) fn spread_args(
    kernel_name: Option<&str>,
    invocations: &[u64],
    extra_args: &[String],
    leave_out_nccl: bool,
) -> Vec<String> {
    let invocations: Vec<String> = invocations.iter().map(u64::to_string).collect();
    let mut args = Vec::new();
    if kernel_name.is_none() && !has_kernel_name_base(extra_args) {
        args.extend(DEMANGLED_BASE.map(String::from));
    }
    let every_kernel = if leave_out_nccl {
        collectives::NOT_NCCL
    } else {
        ""
    };
    args.extend([
        "--kernel-id".into(),
        format!(
            "::{}:{}",
            kernel_name.unwrap_or(every_kernel),
            invocations.join("|")
        ),
    ]);
    args
}

/// Whether the user named kernels through `--ncu-arg` (`-k`, `--kernel-name`).
fn has_kernel_name(extra_args: &[String]) -> bool {
    gives_option(extra_args, &["-k", "--kernel-name"])
}

/// Whether the user gave ncu one of these options through `--ncu-arg`, as `--name VALUE`
/// or `--name=VALUE`.
pub(super) fn gives_option(extra_args: &[String], names: &[&str]) -> bool {
    extra_args
        .iter()
        .any(|a| names.contains(&a.split('=').next().unwrap_or(a)))
}

/// The options by which a user names sections, a set or a section folder of their own.
pub(super) const SECTION_ARGS: &[&str] = &[
    "--section",
    "--set",
    "--section-folder",
    "--section-folder-recursive",
];

/// ncu reads every section and rule file of its default folder when it starts, and a run
/// that names its metrics reads none of them: pointed at an empty folder, ncu started
/// 0.4-0.5 s sooner on the H200 and gpulint's default run took 0.25-0.74 s less, with the
/// same findings (lab/runs/2026-12-03-cost-floor.txt). Not where the user asked for
/// sections, a set or a folder of their own. Puts `--section-folder EMPTY` first in `args`
/// and returns the folder, which must outlive the run.
pub(super) fn leave_default_sections_out(
    args: &mut Vec<std::ffi::OsString>,
    extra_args: &[String],
) -> Option<tempfile::TempDir> {
    if gives_option(extra_args, SECTION_ARGS) {
        return None;
    }
    let empty = crate::platform::private_tempdir("gpulint-no-sections-").ok()?;
    args.splice(
        0..0,
        [
            "--section-folder".into(),
            empty.path().as_os_str().to_owned(),
        ],
    );
    Some(empty)
}

/// A sample by time of some kernels only: their mangled names, matched whole (a mangled
/// name is letters, digits and `_`, which `--kernel-id`'s `:`-separated fields can carry;
/// `crate::profile::sampling::by_time` keeps to such names), and their launches with these numbers,
/// counted per mangled name, one count per template instance as with demangled names.
pub(super) fn chosen_kernels_args(kernels: &[String], numbers: &[u64]) -> Vec<String> {
    let numbers: Vec<String> = numbers.iter().map(u64::to_string).collect();
    vec![
        "--kernel-name-base".into(),
        "mangled".into(),
        "--kernel-id".into(),
        format!("::regex:^({})$:{}", kernels.join("|"), numbers.join("|")),
    ]
}

/// Whether a mangled name can be asked for whole in `--kernel-id`'s regex field: letters,
/// digits and `_` only (no `:`, which separates the fields, and nothing a regex reads).
pub fn mangled_fits_kernel_id(mangled: &str) -> bool {
    !mangled.is_empty()
        && mangled
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Launches counted per demangled name: by ncu's default, the function name, two instances
/// of one template share a count, for `--kernel-id` and for the configurations of
/// `--filter-mode per-launch-config` alike (PyTorch's `vectorized_elementwise_kernel<4,
/// FillFunctor>` and `<4, GeluCUDAKernelImpl>`: lab/runs/2026-12-01-per-config-names.txt).
pub(super) const DEMANGLED_BASE: [&str; 2] = ["--kernel-name-base", "demangled"];

pub(super) fn has_kernel_name_base(extra_args: &[String]) -> bool {
    gives_option(extra_args, &["--kernel-name-base"])
}

/// Whether a `-k` pattern can stand in `--kernel-id`, whose fields are separated by `:`.
pub(super) fn fits_kernel_id(kernel_name: &str) -> bool {
    !kernel_name
        .strip_prefix("regex:")
        .unwrap_or(kernel_name)
        .contains(':')
}

/// ncu options with which the user chose launches themselves: gpulint's sample would
/// change their meaning (`--launch-count` counts per configuration in its filter mode).
pub(super) const LAUNCH_CHOOSING_ARGS: &[&str] = &[
    "--filter-mode",
    "--launch-count",
    "-c",
    "--launch-skip",
    "-s",
    "--launch-skip-before-match",
    "--kernel-id",
    "--range-filter",
    "--nvtx-include",
    "--nvtx-exclude",
];

/// What the user asked for, or left to gpulint.
pub struct LaunchChoice<'a> {
    pub per_config: Option<u64>,
    pub all_launches: bool,
    pub launch_skip: Option<u64>,
    pub launch_count: Option<u64>,
    pub kernel_name: Option<&'a str>,
}

/// Which launches to profile: `None` (every launch) when the user asked for all, or chose
/// launches with ncu's own options; per configuration when asked, or when a `-k` pattern
/// holds a `:` that `--kernel-id` cannot carry; otherwise the spread.
pub fn choose_sample(choice: &LaunchChoice, extra_args: &[String]) -> Option<Sample> {
    let chosen = gives_option(extra_args, LAUNCH_CHOOSING_ARGS);
    if choice.all_launches
        || choice.launch_skip.is_some()
        || choice.launch_count.is_some()
        || chosen
    {
        return None;
    }
    match (choice.per_config, choice.kernel_name) {
        (Some(n), _) => Some(Sample::PerConfig(n)),
        (None, Some(k)) if !fits_kernel_id(k) => Some(Sample::PerConfig(DEFAULT_PER_CONFIG)),
        (None, _) => Some(Sample::Spread),
    }
}

/// Launches per configuration when a `-k` pattern rules out the spread.
pub(super) const DEFAULT_PER_CONFIG: u64 = 3;

pub(super) fn shell_words(args: &[std::ffi::OsString]) -> String {
    args.iter()
        .map(|a| {
            let a = crate::printable::printable(&a.to_string_lossy()).into_owned();
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
            {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
