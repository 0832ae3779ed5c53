//! gpulint: a linter for NVIDIA Nsight Compute profiles.

pub(crate) mod analysis;
pub(crate) mod atomic_file;
pub mod baseline;
pub mod chips;
pub mod cli;
pub mod commands;
pub mod config;
pub mod diff;
pub mod error;
pub(crate) mod fold;
pub mod ingest;
pub mod kernel;
pub(crate) mod load;
pub mod messages;
pub mod metrics;
pub mod origin;
pub(crate) mod platform;
pub(crate) mod printable;
pub mod profile;
pub mod report;
pub mod roofline;
pub mod rules;
