#!/usr/bin/env bash
# The oldest Rust that Cargo.toml's `rust-version` promises must build the crate, its
# tests included: this installs that toolchain (minimal profile) and type-checks with it
# against the committed Cargo.lock. A toolchain rustup cannot install (no network) is
# reported SKIPPED, as scripts/check-portable.sh does its targets.
#   usage: scripts/check-msrv.sh        (from the repository root)
set -euo pipefail
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
if [ -z "$msrv" ]; then
  echo "msrv: Cargo.toml has no rust-version" >&2
  exit 1
fi
if ! command -v rustup > /dev/null; then
  echo "msrv: SKIPPED (no rustup to install Rust $msrv)"
  exit 0
fi
if ! rustup run "$msrv" rustc --version > /dev/null 2>&1; then
  if ! rustup toolchain install "$msrv" --profile minimal > /dev/null 2>&1; then
    echo "msrv: SKIPPED (rustup could not install Rust $msrv)"
    exit 0
  fi
fi
cargo "+$msrv" check --locked --all-targets --quiet
echo "msrv: Rust $msrv builds gpulint, tests included (cargo +$msrv check --all-targets)"
