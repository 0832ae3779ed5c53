//! gpulint: a linter for NVIDIA Nsight Compute profiles.

pub mod analysis;
pub mod atomic_file;
pub mod baseline;
pub mod chips;
pub mod cli;
pub mod commands;
pub mod config;
pub mod diff;
pub mod error;
pub mod fold;
pub mod ingest;
pub mod kernel;
pub mod messages;
pub mod metrics;
pub mod ncu;
pub mod origin;
pub mod printable;
pub mod report;
pub mod roofline;
pub mod rules;
pub mod sample;
pub mod sampling;
pub mod saved_run;
