//! gpulint: a linter for NVIDIA Nsight Compute profiles.
//!
//! The binary is [`run_command_line`]: `check`, `run`, `baseline`, `diff` and the rest,
//! each rendering its report in the format asked for. As a library, gpulint is small:
//! - read an export: [`read_path`], [`parse_bytes`] or, launch by launch, [`stream_path`],
//!   into a [`Profile`] of [`Launch`]es;
//! - lint it: [`load_rules`], then [`lint`] (or [`lint_with`]: per launch, kernels
//!   switched off), for [`Finding`]s; one rule on one launch, as a rule's author tests it:
//!   [`check_in_profile`];
//! - place a launch on the roofline: [`place`], against the export's peaks or a known
//!   GPU's ([`gpu_peaks`]);
//! - name a kernel as the reports do: [`base_name`], [`short_name`].
//!
//! Every module is crate-private, so the compiler reports what nothing uses. The fuzz
//! targets reach their parsers through `fuzzing`, built only under cargo-fuzz's
//! `--cfg fuzzing`.

// The fuzz targets' facade reaches parsers whose types the API does not export.
#![cfg_attr(fuzzing, allow(unnameable_types))]

pub(crate) mod atomic_file;
pub(crate) mod baseline;
pub(crate) mod chips;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod diff;
pub(crate) mod error;
pub(crate) mod fold;
pub(crate) mod ingest;
pub(crate) mod kernel;
pub(crate) mod load;
pub(crate) mod messages;
pub(crate) mod metrics;
pub(crate) mod origin;
pub(crate) mod pipeline;
pub(crate) mod platform;
pub(crate) mod printable;
pub(crate) mod profile;
pub(crate) mod report;
pub(crate) mod roofline;
pub(crate) mod rules;

pub use error::{Error, Location, Result};
pub use ingest::stream::{Progress, Source as Streamed};
pub use ingest::{
    CountersCover, Launch, Page, Process, Profile, ReadOptions, parse_bytes, read_path, stream_path,
};
pub use kernel::{base_name, short_name};
pub use metrics::Metrics;
pub use roofline::gpus::{DeviceShape, GpuPeaks, lookup as gpu_peaks};
pub use roofline::{Bound, InstructionRoofline, MemoryLevel, Roofline, place};
pub use rules::engine::{
    Coverage, Edit, Finding, Judgement, Outcome, Skip, SourceLocation, Unjudged, check_in_profile,
    lint, lint_with,
};
pub use rules::{Rule, Severity, load as load_rules};

/// The command line: parses the arguments, runs the command, and gives its exit code (2
/// for an error, which goes to stderr).
pub fn run_command_line() -> std::process::ExitCode {
    let cli = cli::Cli::parse_or_exit();
    messages::set_quiet(cli.quiet);
    match commands::run(cli.command) {
        Ok(code) => std::process::ExitCode::from(code),
        Err(e) => {
            messages::to_stderr(format_args!("error: {e}\n"));
            std::process::ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod fuzz_replay;

/// The parsers the fuzz targets (`fuzz/fuzz_targets/`) call, beside the public API.
#[cfg(fuzzing)]
pub mod fuzzing {
    pub use crate::baseline::{parse as parse_baseline, to_json as baseline_to_json};
    pub use crate::config::Config;
    pub use crate::diff::{default_gates, diff};
    pub use crate::rules::expr::parse as parse_expression;
    pub use crate::rules::parse_rule;
}
