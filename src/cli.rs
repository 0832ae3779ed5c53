//! Command-line definitions (clap). The logic lives in [`crate::app`].

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "gpulint",
    version,
    about = "Lint NVIDIA Nsight Compute profiles: what is wrong with each kernel, and how to fix it",
    after_help = "Run `gpulint ./my_kernel [args]` to profile a program and lint it in one step."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint CSV exports of ncu (raw or details page, or ncu's stdout). `-` reads stdin.
    Check {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// List the rules.
    Rules {
        #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
        format: RulesFormat,
        /// Directory of extra or overriding rule files.
        #[arg(long, value_name = "DIR")]
        rules: Option<String>,
    },
    /// Print one rule's documentation.
    Explain {
        /// Slug (uncoalesced-load) or code (GL101).
        rule: String,
        #[arg(long, value_name = "DIR")]
        rules: Option<String>,
    },
    /// `gpulint ./prog args`: profile a program with ncu, then lint it.
    #[command(external_subcommand)]
    External(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Concise,
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
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
    /// Exit 0 even when there are findings.
    #[arg(long)]
    pub exit_zero: bool,
    /// Run only these rules (codes, code prefixes such as GL1, slugs, or ALL).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Vec<String>,
    /// Skip these rules.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,
    /// Override a rule threshold: RULE.PARAM=VALUE (e.g. uncoalesced-load.min_excess_share=0.5).
    #[arg(long = "param", value_name = "RULE.PARAM=VALUE")]
    pub params: Vec<String>,
    /// Config file (default: ./gpulint.toml when present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<String>,
    /// Directory of extra or overriding rule files.
    #[arg(long, value_name = "DIR")]
    pub rules: Option<String>,
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Say which rules were skipped and why, and what the parser noticed.
    #[arg(short, long)]
    pub verbose: bool,
}
