//! Command-line definitions (clap). The logic lives in [`crate::commands`].

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod ncu_args;
pub use ncu_args::NcuArgs;

/// Said at the end of each command's `--help`: what its exit status means.
const EXIT_STATUS: &str = "Exit status: 0 clean, 1 findings at or above --fail-on (or fewer rules judged than --min-judged), 2 bad input or usage.";
const EXIT_STATUS_RUN: &str = "Exit status: 0 clean, 1 findings at or above --fail-on (or fewer rules judged than --min-judged), 3 the program failed whatever the findings (a status other than 0, or a signal: the report is of the kernels it ran before that), 2 bad input or usage.";
const EXIT_STATUS_DIFF: &str = "Exit status: 0 the gate passes, 1 it fails (a regression, a new finding, a gated metric the candidate lacks, or with --strict a kernel that appeared or vanished), 2 another device or rule selection under --strict, or bad input or usage.";
const EXIT_STATUS_PLAIN: &str = "Exit status: 0 done, 2 bad input or usage.";
const EXIT_STATUS_TESTS: &str =
    "Exit status: 0 every case passes, 1 a case failed, 2 bad input or usage.";
const EXIT_STATUS_DOCTOR: &str =
    "Exit status: 0 every check passes, 1 a check failed, 2 bad input or usage.";

#[derive(Debug, Parser)]
#[command(
    name = "gpulint",
    version,
    about = "Lint NVIDIA Nsight Compute profiles: what is wrong with each kernel, and how to fix it",
    after_help = "Run `gpulint ./my_kernel [args]` to profile a program and lint it in one step.\n\nExit status: 0 clean, 1 findings at or above --fail-on (or a failed gate), 3 the profiled program failed, 2 bad input or usage."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Say nothing on stderr but warnings and errors: no notes on what gpulint is doing
    /// (the program's runs, the sample it took, the source pass).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

impl Cli {
    /// Parses the command line, or exits with clap's usage error (status 2). An option
    /// before any command (`gpulint --format json ./prog`) gets a hint where it goes:
    /// options belong to a command, and `gpulint ./prog` takes none before the program.
    pub fn parse_or_exit() -> Cli {
        // As the OS gave them: an argument that is not UTF-8 is clap's to report.
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        Cli::try_parse_from(&args).unwrap_or_else(|e| {
            let args: Vec<String> = args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let misplaced = e.kind() == clap::error::ErrorKind::UnknownArgument
                && args.get(1).is_some_and(|a| a.starts_with('-'));
            if misplaced {
                let _ = e.print();
                crate::messages::to_stderr(format_args!(
                    "\nhint: options come after a command: `gpulint run [OPTIONS] -- PROG ARGS` \
                     or `gpulint check [OPTIONS] FILE`\n"
                ));
                std::process::exit(2);
            }
            if let Some(text) = option_of_another_command(&e, &args) {
                crate::messages::to_stderr(format_args!("{text}\n"));
                std::process::exit(2);
            }
            e.exit()
        })
    }
}

/// For an option given to a command that does not take it (`gpulint check F --strict`):
/// which commands do take it, instead of clap's tip to pass it as a value.
fn option_of_another_command(e: &clap::Error, args: &[String]) -> Option<String> {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = given.split('=').next()?.strip_prefix("--")?;
    let root = Cli::command();
    let used = args.get(1)?;
    let takers: Vec<String> = root
        .get_subcommands()
        .filter(|c| c.get_name() != used)
        .filter(|c| c.get_arguments().any(|a| a.get_long() == Some(flag)))
        .map(|c| format!("`gpulint {}`", c.get_name()))
        .collect();
    if takers.is_empty() {
        return None;
    }
    Some(format!(
        "error: `gpulint {used}` takes no option --{flag}; {} take{} it\n\nFor more information, try 'gpulint {used} --help'.",
        takers.join(", "),
        if takers.len() == 1 { "s" } else { "" }
    ))
}

/// `gpulint diff`'s options.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Write the report to FILE instead of stdout: atomically, never over an input.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<String>,
    /// A saved baseline (.json) or a CSV export.
    pub baseline: String,
    /// A CSV export or a saved baseline.
    pub candidate: String,
    /// Fail when kernels appear or vanish, too.
    #[arg(long)]
    pub strict: bool,
    /// Band for one metric: METRIC=VALUE, absolute, or relative with `%` (e.g. sectors_per_request_ld=5%).
    #[arg(long = "threshold", value_name = "METRIC=VALUE")]
    pub thresholds: Vec<String>,
    /// Also gate kernel duration (noisy: default band 20%).
    #[arg(long)]
    pub gate_duration: bool,
    /// Fail unless the kernels compared hold at least PCT% of the baseline's GPU time
    /// (of its kernels where it has no durations): a candidate that renamed or dropped
    /// most kernels compares little, and must not pass on it.
    #[arg(long, value_name = "PCT", default_value_t = crate::diff::DEFAULT_MIN_COMPARED_PCT)]
    pub min_compared: f64,
    /// How to print the diff: human, concise (one line each), json (with the verdict
    /// and its reasons), markdown, github (workflow annotations) or sarif.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
    /// Also write the same comparison in another format: FORMAT=FILE, repeatable
    /// (e.g. `--also-write markdown=summary.md --also-write sarif=gpulint.sarif`).
    #[arg(long = "also-write", value_name = "FORMAT=FILE")]
    pub also_write: Vec<String>,
    /// Exit 0 even when the gate fails.
    #[arg(long)]
    pub exit_zero: bool,
    /// Colour: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint ncu exports (raw or details page CSV, ncu's text output, or a CSV the Nsight
    /// Compute GUI exported). `-` reads stdin.
    #[command(after_help = EXIT_STATUS)]
    Check {
        /// Write the report to FILE instead of stdout: atomically, never over an input.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        /// Exports (CSV, or ncu's text output), `-` for stdin, or `.ncu-rep` reports (read
        /// through ncu).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        /// For `.ncu-rep` reports made with the SourceCounters section: also read each
        /// kernel's source page and name the source lines behind access findings.
        #[arg(long)]
        source: bool,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// List the rules.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Rules {
        /// Write the report to FILE instead of stdout: atomically, never over an input.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        /// human (one line per rule), json, or markdown (docs/rules.md's table).
        #[arg(long, value_enum, default_value_t = RulesFormat::Human)]
        format: RulesFormat,
        /// Directory of extra or overriding rule files.
        #[arg(long, value_name = "DIR")]
        rules: Option<String>,
    },
    /// Run the `[tests]` cases of the rule files in DIR (paths relative to each file).
    #[command(after_help = EXIT_STATUS_TESTS)]
    TestRules {
        /// Directory of rule files.
        dir: String,
    },
    /// List the metric keys rule conditions can use, with their meaning and ncu names.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Keys,
    /// List the GPUs gpulint knows (for exports that do not say): chip, SMs, peaks, and the
    /// datasheet each figure comes from.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Gpus,
    /// Print one rule's documentation.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Explain {
        /// Slug (uncoalesced-load) or code (GL101).
        rule: String,
        /// Directory of extra or overriding rule files, to explain one of those.
        #[arg(long, value_name = "DIR")]
        rules: Option<String>,
    },
    /// Profile a program with ncu (fewest metrics the rules need), then lint it.
    #[command(after_help = EXIT_STATUS_RUN)]
    Run {
        /// Write the report to FILE instead of stdout: atomically, never over an input.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        #[command(flatten)]
        ncu: Box<NcuArgs>,
        #[command(flatten)]
        report: ReportArgs,
        /// The program and its arguments (after `--`, or as the first word that is not an
        /// option of gpulint's).
        #[arg(
            required = true,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "PROGRAM"
        )]
        program: Vec<OsString>,
    },
    /// Write a baseline (gated metrics and findings per kernel) from CSV exports.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Baseline {
        /// Exports to summarise (CSV, or ncu's text output).
        #[arg(required = true, value_name = "PROFILE")]
        files: Vec<String>,
        /// Output file (default: stdout). Written atomically; never over an input.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        /// Record this ncu version in the baseline (`gpulint run` knows it by itself).
        #[arg(long, value_name = "VERSION")]
        ncu_version: Option<String>,
        #[command(flatten)]
        gate: GateArgs,
    },
    /// Compare a candidate with a baseline: exit 1 on a regression or a new finding.
    #[command(after_help = EXIT_STATUS_DIFF)]
    Diff(DiffArgs),
    /// Roofline placement of every kernel: a line each, `--format csv` for the chart's
    /// coordinates, `--svg FILE` for the chart.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Roofline {
        /// Write the report to FILE instead of stdout: atomically, never over an input.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        /// Exports to place (CSV, or ncu's text output).
        #[arg(required = true, value_name = "PROFILE")]
        files: Vec<String>,
        /// human, csv or json.
        #[arg(long, value_enum, default_value_t = RooflineFormat::Human)]
        format: RooflineFormat,
        /// Write the chart here (SVG).
        #[arg(long, value_name = "FILE")]
        svg: Option<String>,
        /// Peaks from the built-in table for this GPU instead of the profile's.
        #[arg(long, value_name = "NAME")]
        gpu: Option<String>,
    },
    /// Print the ncu metrics the enabled rules need, comma-separated, for a hand-written
    /// `ncu --metrics` call.
    #[command(after_help = EXIT_STATUS_PLAIN)]
    Metrics {
        /// Write the report to FILE instead of stdout: atomically, never over an input.
        #[arg(short, long, value_name = "FILE")]
        output: Option<String>,
        /// Leave out the roofline's metrics.
        #[arg(long)]
        no_roofline: bool,
        /// Only metrics that exist on this chip, as ncu names it (gh100, ga102, gb202, tu104, ...).
        #[arg(long, value_name = "NAME")]
        chip: Option<String>,
        /// list: comma-separated, for `ncu --metrics`; lines: one per line; json: an array.
        #[arg(long, value_enum, default_value_t = MetricsFormat::List)]
        format: MetricsFormat,
        #[command(flatten)]
        selection: RuleArgs,
    },
    /// Check that this machine can profile: ncu, a GPU, counter permission, clocks.
    /// Exit status 0 when every check passed, 1 when one failed; checks that depend on a
    /// failed one are skipped, not reported as passed.
    #[command(after_help = EXIT_STATUS_DOCTOR)]
    Doctor {
        /// The ncu binary to check (default: $NCU, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin).
        #[arg(long, value_name = "PATH")]
        ncu: Option<String>,
    },
    /// `gpulint ./prog args`: the same as `gpulint run -- ./prog args`.
    #[command(external_subcommand)]
    External(Vec<OsString>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// One line per rule (`table` is the old name).
    #[value(alias = "table")]
    Human,
    Json,
    /// docs/rules.md's table.
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Concise,
    Json,
    Markdown,
    Github,
    Sarif,
    /// One self-contained page (styles, script and chart inline) to share: `-o report.html`.
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Human,
    /// One line per regression, new finding or unmeasured metric, then the verdict.
    Concise,
    Json,
    Markdown,
    Github,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricsFormat {
    List,
    /// One metric per line (`human`, as the other commands call their readable format).
    #[value(alias = "human")]
    Lines,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RooflineFormat {
    Human,
    Csv,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Options shared by every command that prints a lint report.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// How to print the report: human, concise (one line a finding), json, markdown,
    /// github (workflow annotations) or sarif.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
    /// Exit 0 even when there are findings.
    #[arg(long)]
    pub exit_zero: bool,
    /// Exit 1 when fewer than PCT% of the rules that apply could judge the profile (an
    /// export too thin to judge fails instead of passing). CI gates: 100.
    #[arg(long, value_name = "PCT", value_parser = percentage)]
    pub min_judged: Option<f64>,
    /// The rule selection, `--min-share`, `-j` and `-v`: what `baseline` and `diff` take.
    #[command(flatten)]
    pub gate: GateArgs,
    /// Colour: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Roofline peaks from the built-in table for this GPU (H200, H100 PCIe, A100 80GB,
    /// L4, T4, RTX 4090, ...) instead of the profile's own peak metrics.
    #[arg(long, value_name = "NAME")]
    pub gpu: Option<String>,
    /// ncu source page(s) (`--page source --csv --print-source cuda,sass -k KERNEL`) to
    /// name the source lines behind each finding whose cause sits on a line.
    #[arg(long = "source-page", value_name = "FILE")]
    pub source_pages: Vec<String>,
    /// Make CUDA source paths in SARIF and GitHub annotations relative to this directory,
    /// your repository's root (default: the working directory, for paths under it).
    #[arg(long, value_name = "DIR")]
    pub source_root: Option<String>,
    /// Also write the roofline chart here (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<String>,
    /// Show only the N findings with the most time at stake, in every format (each says
    /// how many it left out; JSON as `findings_left_out_by_top`).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// One finding and one table row per launch, instead of one per kernel (name, grid
    /// and block) with the launch count and the range of the evidence. Keeps every
    /// launch in memory.
    #[arg(long)]
    pub per_launch: bool,
}

/// Which rules run, with which thresholds: every command that lints takes these.
#[derive(Debug, Clone, Default, Args)]
pub struct RuleArgs {
    /// Run only these rules (codes, code prefixes such as GL1, slugs, or ALL): a comma
    /// list, or the option repeated.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Vec<String>,
    /// Skip these rules (as for --select): a comma list, or the option repeated.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,
    /// Override a rule threshold: RULE.PARAM=VALUE (e.g. uncoalesced-load.min_excess_share=0.5).
    #[arg(long = "param", value_name = "RULE.PARAM=VALUE")]
    pub params: Vec<String>,
    /// Config file (default: the nearest gpulint.toml, or pyproject.toml with [tool.gpulint], from the working directory up).
    #[arg(long, value_name = "FILE")]
    pub config: Option<String>,
    /// Directory of extra or overriding rule files.
    #[arg(long, value_name = "DIR")]
    pub rules: Option<String>,
}

/// How exports are read: every command that reads them takes these.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Threads that parse the input (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Say which rules were skipped and why, and what the parser noticed.
    #[arg(short, long)]
    pub verbose: bool,
}

/// What the gate judges findings by: the rules, and the share below which a finding is
/// only info.
#[derive(Debug, Clone, Args)]
pub struct GateArgs {
    #[command(flatten)]
    pub selection: RuleArgs,
    /// Findings on kernels below this share of total GPU time become info (and do not
    /// gate): a percentage from 0 to 100, with or without `%`.
    #[arg(long, value_name = "PCT", default_value_t = 0.0, value_parser = percentage)]
    pub min_share: f64,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// A percentage from 0 to 100, `5` or `5%`.
fn percentage(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("{s:?} is not a percentage"))?;
    if (0.0..=100.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is not between 0 and 100"))
    }
}
