//! gpulint: a linter for NVIDIA Nsight Compute profiles.

pub mod error;
pub mod ingest;
pub mod metrics;
pub mod config;
pub mod rules;
pub mod report;
pub mod cli;
pub mod app;
